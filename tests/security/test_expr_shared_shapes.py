"""Expressions that differ only in their constants share a compiled template, yet each is
checked on its own: the sandbox refuses what one of them does, and a load error names the
line of the one that has it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.templating import TemplateError, compile_expression
from tests.support.suites import load_error

NAMES = ("output", "json", "vars")


def test_each_expression_of_a_shape_computes_with_its_own_constants() -> None:
    parcels = [
        compile_expression(f'("Parcel {n}" | lower) in (output | lower)', NAMES) for n in (1, 2)
    ]
    assert parcels[0].evaluate({"output": "PARCEL 1 left"}) is True
    assert parcels[1].evaluate({"output": "PARCEL 1 left"}) is False
    assert parcels[1].evaluate({"output": "parcel 2"}) is True
    text, number = (compile_expression(f"json.n == {value}", NAMES) for value in ('"5"', "5"))
    assert (text.evaluate({"json": {"n": "5"}}), number.evaluate({"json": {"n": "5"}})) == (
        True,
        False,
    )
    assert number.evaluate({"json": {"n": 5}}) is True


@pytest.mark.parametrize(
    ("allowed", "refused"),
    [
        ('json | map(attribute="name") | list', 'json | map(attribute="__class__") | list'),
        ('json["name"]', 'json["__globals__"]'),
        ('json | selectattr("name") | list', 'json | selectattr("_private") | list'),
    ],
)
def test_the_sandbox_sees_each_expression_of_a_shape(allowed: str, refused: str) -> None:
    compile_expression(allowed, NAMES)
    with pytest.raises(TemplateError, match="templates cannot access"):
        compile_expression(refused, NAMES)


def test_a_constant_cannot_be_read_as_a_variable() -> None:
    with pytest.raises(TemplateError, match="unknown variable '_promptum_constant_0'"):
        compile_expression("_promptum_constant_0 == 1", NAMES)


def test_a_load_error_names_the_line_of_the_expression_that_has_it(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "models: [openai/gpt-4o-mini]\n"
        "vars: {topic: rome}\n"
        "test_cases:\n"
        "  - id: one\n"
        "    query: hi\n"
        "    checks:\n"
        "      - {type: expr, value: \"vars.topic == 'rome'\"}\n"
        "      - {type: expr, value: \"vars.topc == 'paris'\"}\n",
        encoding="utf-8",
    )
    problem = load_error(suite)
    assert "suite.yaml:8:" in problem
    assert "`vars.topc` is not defined" in problem
    assert "suite.yaml:7:" not in problem
