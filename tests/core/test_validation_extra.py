"""Validators beyond the reference: negations, length, JSON validity, schemas, combinators."""

import re

import pytest

from promptum import (
    AllOf,
    AnyOf,
    Contains,
    IsValidJson,
    JsonSchema,
    Length,
    Not,
    NotContains,
    NotRegex,
    Regex,
)


def test_not_contains() -> None:
    assert NotContains("sorry").validate("Here you go") == (
        True,
        {"substring": "sorry", "case_sensitive": True},
    )
    assert NotContains("sorry", case_sensitive=False).validate("SORRY, no")[0] is False


def test_not_regex_reports_the_forbidden_match() -> None:
    passed, details = NotRegex(r"\bI cannot\b", flags=re.IGNORECASE).validate("i cannot do it")
    assert passed is False
    assert details["matched"] == "i cannot"
    assert NotRegex(r"\d").validate("none")[0] is True


@pytest.mark.parametrize(
    ("validator", "text", "expected"),
    [
        (Length(min_length=3), "ab", False),
        (Length(min_length=3), "abc", True),
        (Length(max_length=3), "abcd", False),
        (Length(2, 4), "abc", True),
    ],
)
def test_length(validator: Length, text: str, expected: bool) -> None:
    passed, details = validator.validate(text)
    assert passed is expected
    assert details["length"] == len(text)


@pytest.mark.parametrize(
    ("text", "fenced"),
    [
        ('{"a": 1}', False),
        ("[1, 2]", False),
        ('```json\n{"a": 1}\n```', True),
        ('```\n{"a": 1}\n```', True),
        ("  ```JSON\n[1]\n```\n", True),
        ('```{"a": 1}```', True),
    ],
)
def test_is_valid_json_accepts_raw_or_one_fenced_block(text: str, fenced: bool) -> None:
    passed, details = IsValidJson().validate(text)
    assert passed is True
    assert details["fenced"] is fenced


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "Here it is:\n```json\n{}\n```",
        '```json\n{"a": 1}\n```\n```json\n{}\n```',
        "```json\n{oops}\n```",
        "```",
    ],
)
def test_is_valid_json_rejects_prose_and_several_blocks(text: str) -> None:
    passed, details = IsValidJson().validate(text)
    assert passed is False
    assert "JSON" in details["error"]


def test_json_schema_with_a_full_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"age": {"type": "integer", "minimum": 0}},
        "required": ["age"],
    }
    validator = JsonSchema(schema=schema)
    assert validator.validate('{"age": 3}') == (
        True,
        {"parsed": {"age": 3}, "missing_keys": [], "schema_errors": []},
    )
    passed, details = validator.validate('{"age": -1}')
    assert passed is False
    assert details["schema_errors"] == ["$.age: -1 is less than the minimum of 0"]


def test_json_schema_rejects_an_invalid_schema_at_construction() -> None:
    with pytest.raises(ValueError, match="invalid JSON Schema"):
        JsonSchema(schema={"type": "no-such-type"})


def test_combinators_compose() -> None:
    polite = AllOf((Contains("please"), Not(Contains("!"))))
    assert polite.validate("please wait")[0] is True
    passed, details = polite.validate("please wait!")
    assert passed is False
    assert [r["passed"] for r in details["results"]] == [True, False]
    assert polite.describe() == "All of: Response contains 'please'; Not: Response contains '!'"

    either = AnyOf((Regex(r"^yes"), Regex(r"^no")))
    assert either.validate("no way")[0] is True
    assert either.validate("maybe")[0] is False
    assert Not(either).validate("maybe")[0] is True
