"""What a JavaScript-minded user writes in an expression is a located load error saying
how an expression writes it, from `promptum validate` and `promptum run` alike (exit 2,
`file:line:col: field: ...`), before any model is called: not an error grade per response.

`output.length` and `output.includes('x')` parse as Jinja (an attribute, a call), so they
are found in the compiled expression; `===`, `&&` and `JSON.parse` do not compile at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.checks import CheckDefinition
from promptum.cli import main
from tests.support.expression_suites import EXPRESSION_FIELDS, suite_with, write_suite

OPENAI = "openai/gpt-4o-mini"

# What JavaScript writes, and what the load error says an expression writes instead.
WRITTEN: dict[str, tuple[str, str]] = {
    "length": ("output.length < 500", "`output.length` is JavaScript; an expression writes "
               "`output | length`"),
    "includes": ("output.includes('Paris')", "an expression writes `'Paris' in output`"),
    "list-length": ("json.items.length > 0", "an expression writes `json.items | length` (a "
                    "field named `length` is `json.items['length']`)"),
    "chained": ("output.toLowerCase().includes('yes')", "`'yes' in (output | lower)`"),
    "starts-with": ("output.startsWith('Ahoy')", "`output is startswith('Ahoy')`"),
    "trim": ("output.trim() == 'ok'", "`output.trim()` is JavaScript; an expression writes "
             "`output | trim`"),
    "json-parse": ("JSON.parse(output).status == 'ok'", "`JSON.parse` → `output | from_json`"),
    "strict-equality": ("output === 'ok'", "`===` → `==`"),
    "and": ("output && json", "`&&` → `and`"),
    "or": ("output || json", "`||` → `or`"),
    "not": ("!json.ok", "`!x` → `not x`"),
    "null": ("json.a == null", "`null` → `none`"),
    "ternary": ("json.ok ? 1 : 0", "`c ? a : b` → `a if c else b`"),
}  # fmt: skip


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("field", EXPRESSION_FIELDS)
@pytest.mark.parametrize("written", WRITTEN)
def test_javascript_is_a_located_load_error_with_the_expression_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str, field: str, command: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTUM_DB", str(tmp_path / "runs.db"))
    expression, spelling = WRITTEN[written]
    path = write_suite(tmp_path / "suite.yaml", suite_with(field, expression, OPENAI))

    result = CliRunner().invoke(main, [command, str(path)])

    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    (line,) = [line for line in result.output.splitlines() if spelling in line]
    assert line.startswith(f"{path}:")
    assert f": {EXPRESSION_FIELDS[field]}: " in line


def test_a_field_named_like_a_javascript_property_is_read_by_subscript() -> None:
    CheckDefinition.model_validate({"type": "expr", "value": "json['length'] > 2"})
    CheckDefinition.model_validate({"type": "expr", "value": "json.size > 2"})


def test_each_javascript_part_of_an_expression_is_named() -> None:
    with pytest.raises(ValueError, match="is JavaScript") as raised:
        CheckDefinition.model_validate(
            {"type": "expr", "value": "output.length < 9 and tool_calls.length == 1"}
        )
    message = str(raised.value)
    assert "an expression writes `output | length`" in message
    assert "an expression writes `tool_calls | length`" in message
    assert "a field named" not in message  # text and lists have no fields
