"""Validators: small frozen objects that check a response text and explain the outcome."""

from promptum.validation._combinators import AllOf, AnyOf, Not
from promptum.validation._json import IsValidJson, JsonSchema, compiled_schema
from promptum.validation._length import Length
from promptum.validation._protocol import Validator, passes
from promptum.validation._text import Contains, ExactMatch, NotContains, NotRegex, Regex

__all__ = [
    "AllOf",
    "AnyOf",
    "Contains",
    "ExactMatch",
    "IsValidJson",
    "JsonSchema",
    "Length",
    "Not",
    "NotContains",
    "NotRegex",
    "Regex",
    "Validator",
    "compiled_schema",
    "passes",
]
