"""is_valid_json's parse, called past `json.loads`, words every failure as `json.loads` does."""

from __future__ import annotations

import json

import pytest

from promptum.validation import json_problem


def _loads_problem(text: str) -> str:
    with pytest.raises(json.JSONDecodeError) as raised:
        json.loads(text)
    return f"not valid JSON: {raised.value}"


@pytest.mark.parametrize(
    "text",
    [
        '\ufeff{"a": 1}',  # a BOM: json.loads refuses it before decoding
        '{"a": 1} trailing',
        '{"a": 1,}',
        "[1, 2",
        '"unterminated',
        "-",
    ],
)
def test_a_text_that_is_not_json_gets_json_loads_own_message(text: str) -> None:
    assert json_problem(text) == _loads_problem(text)


@pytest.mark.parametrize("text", ['{"a": 1}', " [1, 2] ", "null", '"text"', "-1.5e3"])
def test_a_json_text_passes(text: str) -> None:
    assert json_problem(text) is None
