"""Validators: small frozen objects that check a response text and explain the outcome."""

import typing as _typing

from promptum.foundations.lazy import lazy_exports as _lazy_exports
from promptum.validation._combinators import AllOf, AnyOf, Not
from promptum.validation._json import IsValidJson, JsonSchema, compiled_schema
from promptum.validation._length import Length
from promptum.validation._protocol import Validator, passes
from promptum.validation._text import Contains, ExactMatch, NotContains, NotRegex, Regex

# Shared with the checks, not documented for users: served on use and never
# kept here (promptum.foundations.lazy), so this namespace holds the public names only.
if _typing.TYPE_CHECKING:
    from promptum.validation._approx import Approx as Approx
    from promptum.validation._approx import approx_of as approx_of
    from promptum.validation._approx import is_approx_spec as is_approx_spec
    from promptum.validation._json import json_problem as json_problem
    from promptum.validation._json import parse_json as parse_json
    from promptum.validation._json import unfence as unfence
    from promptum.validation._readings import number_readings as number_readings
    from promptum.validation._readings import read_alike as read_alike
    from promptum.validation._regex import REGEX_TIMEOUT_S as REGEX_TIMEOUT_S
    from promptum.validation._regex import bounded_search as bounded_search
    from promptum.validation._regex import cannot_backtrack as cannot_backtrack
    from promptum.validation._regex import too_slow as too_slow

__getattr__ = _lazy_exports(__name__)

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
