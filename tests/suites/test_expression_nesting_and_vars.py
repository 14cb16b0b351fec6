"""Expressions at load: one nested too deeply is a located error, not a RecursionError; the
mapping methods of `vars` (get, keys, values, items) may be called; an undefined var beside
such a call is still a located error."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.runner import grade
from promptum.suites import load_suite
from promptum.values.completion import Completion
from tests.support.cli import invoke, write


@pytest.mark.parametrize(
    "nested", ["(" * 5000 + "1" + ")" * 5000 + " == 1", "not " * 3000 + "true"]
)
def test_an_expression_nested_too_deeply_is_a_located_load_error(
    tmp_path: Path, nested: str
) -> None:
    """Before: RecursionError out of Jinja's parser, a traceback from `promptum validate`."""
    suite = write(
        tmp_path / "suite.yaml",
        f"""\
        models: [openai/gpt-4o-mini]
        test_cases:
          - id: a
            query: hi
            checks:
              - {{type: expr, value: "{nested}"}}
        """,
    )
    result = invoke("validate", suite)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "suite.yaml:6:" in result.output
    assert "nested too deeply" in result.output


def _rome_suite(folder: Path, *expressions: str) -> Path:
    """A one-case suite with the var `topic: rome`, checked by each expression."""
    checks = "".join(f'      - {{type: expr, value: "{e}"}}\n' for e in expressions)
    head = "models: [openai/gpt-4o-mini]\nvars: {topic: rome}\n"
    case = "test_cases:\n  - id: a\n    query: hi\n    checks:\n"
    return write(folder / "suite.yaml", head + case + checks)


def test_an_expression_may_call_the_mapping_methods_of_vars(tmp_path: Path) -> None:
    """Before: `vars.get` was a load error (`vars.get` is not defined for this case) and,
    past it, an error grade (`templates cannot call mappingproxy.get`)."""
    suite = _rome_suite(
        tmp_path,
        "vars.get('limit', 10) > 5",
        "'topic' in vars.keys() and 'rome' in vars.values()",
        "vars.items() | list | length == 1",
        "vars['topic'] == 'rome' and vars.topic == 'rome'",
    )
    (case,) = load_suite(suite).cases
    grades = grade(case, Completion(text="an answer"))
    assert [(g.passed, g.error) for g in grades] == [(True, None)] * 4


def test_an_undefined_var_is_still_a_load_error_beside_a_method_call(tmp_path: Path) -> None:
    suite = _rome_suite(tmp_path, "vars.get('topic') == vars.topc")
    result = invoke("validate", suite)
    assert result.exit_code == 2, result.output
    assert "`vars.topc` is not defined for this case. Did you mean 'vars.topic'?" in result.output
    assert "vars.get" not in result.output
