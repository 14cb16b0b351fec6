"""Every example of reference/validation.md, run as written."""

import dataclasses
import re
from typing import Any

import pytest

from promptum import Contains, ExactMatch, JsonSchema, Regex, Validator
from tests.support.reference import LengthValidator


def test_exact_match_examples() -> None:
    validator = ExactMatch("42")
    assert validator.validate("42")[0] is True
    assert validator.validate("42!")[0] is False

    validator = ExactMatch("hello", case_sensitive=False)
    passed, details = validator.validate("HELLO")
    assert passed is True
    assert details == {"expected": "hello", "actual": "HELLO", "case_sensitive": False}


def test_exact_match_does_not_trim() -> None:
    assert ExactMatch("42").validate(" 42\n")[0] is False


def test_contains_examples() -> None:
    passed, details = Contains("Python").validate("I love Python!")
    assert passed is True
    assert details == {"substring": "Python", "case_sensitive": True}

    passed, details = Contains("python", case_sensitive=False).validate("PYTHON rocks")
    assert passed is True
    assert details == {"substring": "python", "case_sensitive": False}
    assert Contains("python").validate("PYTHON rocks")[0] is False


def test_regex_examples() -> None:
    passed, details = Regex(r"\d{3}-\d{4}").validate("Call 555-1234")
    assert passed is True
    assert details == {"pattern": r"\d{3}-\d{4}", "matched": "555-1234"}

    passed, details = Regex(r"hello", flags=re.IGNORECASE).validate("HELLO world")
    assert passed is True
    assert details == {"pattern": "hello", "matched": "HELLO"}


def test_regex_without_match_reports_none() -> None:
    assert Regex(r"\d+").validate("no digits") == (False, {"pattern": r"\d+", "matched": None})


def test_regex_uses_search_not_match() -> None:
    assert Regex("world").validate("hello world")[0] is True


def test_json_schema_examples() -> None:
    passed, details = JsonSchema().validate('{"any": "json"}')
    assert passed is True
    assert details == {"parsed": {"any": "json"}, "missing_keys": []}

    validator = JsonSchema(required_keys=("status", "data"))
    assert validator.validate('{"status": "ok", "data": []}')[0] is True
    passed, details = validator.validate('{"status": "ok"}')
    assert passed is False
    assert details == {"parsed": {"status": "ok"}, "missing_keys": ["data"]}


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '"a string"', ""])
def test_json_schema_reports_error_when_not_an_object(text: str) -> None:
    passed, details = JsonSchema().validate(text)
    assert passed is False
    assert set(details) == {"error"}
    assert details["error"]


@pytest.mark.parametrize(
    ("cls", "fields"),
    [
        (ExactMatch, [("expected", dataclasses.MISSING), ("case_sensitive", True)]),
        (Contains, [("substring", dataclasses.MISSING), ("case_sensitive", True)]),
        (Regex, [("pattern", dataclasses.MISSING), ("flags", 0)]),
    ],
)
def test_validators_are_frozen_slotted_dataclasses_with_documented_fields(
    cls: type, fields: list[tuple[str, Any]]
) -> None:
    assert dataclasses.is_dataclass(cls)
    assert "__slots__" in vars(cls)
    assert [(f.name, f.default) for f in dataclasses.fields(cls)] == fields
    instance = cls("x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(instance, fields[0][0], "y")


def test_json_schema_fields_keep_the_documented_default() -> None:
    fields = dataclasses.fields(JsonSchema)
    assert fields[0].name == "required_keys"
    assert fields[0].default == ()
    assert JsonSchema().required_keys == ()


def test_a_plain_class_satisfies_the_protocol() -> None:
    assert isinstance(LengthValidator(), Validator)
    assert not isinstance(object(), Validator)
    for validator in (ExactMatch("a"), Contains("a"), Regex("a"), JsonSchema()):
        assert isinstance(validator, Validator)


def test_describe_reads_well() -> None:
    assert ExactMatch("42").describe() == "Response equals '42'"
    assert Contains("python", case_sensitive=False).describe() == (
        "Response contains 'python' (ignoring case)"
    )
    assert Regex(r"\d+").describe() == r"Response matches /\d+/"
    assert JsonSchema(required_keys=("status", "data")).describe() == (
        "Response is a JSON object with keys 'status', 'data'"
    )
