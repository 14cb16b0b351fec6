"""Checks whose value each data row gives (a suite's `value: "{{ capital }}"`, a `columns:`
cell, a JSONL row's own `checks:`): rows copied from the prototype take their values, and
give the cases, the errors and the plan a full build gives."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptum.cases import TestCase
from promptum.errors import ConfigError
from promptum.runner import Survey, plan_fingerprint
from promptum.session import Session
from promptum.suites import _loader, _row_build, load_suite
from promptum.suites._build import build_case

SUITE = """\
name: capitals
models: [m1]
prompt: "What is the capital of {{ country }}?"
defaults:
  checks:
    - {type: CHECK, value: 'TEMPLATE'}
    - {type: max_length, value: 200}
cases_from: ROWS
"""


def _suite(check: str = "contains", template: str = "{{ capital }}", rows: str = "rows.csv") -> str:
    return SUITE.replace("CHECK", check).replace("TEMPLATE", template).replace("ROWS", rows)


def _csv(rows: list[tuple[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "country", "capital"])
    writer.writerows((f"r{n}", country, capital) for n, (country, capital) in enumerate(rows))
    return out.getvalue()


def _loaded(folder: Path, suite: str, rows: str, name: str = "rows.csv") -> list[TestCase] | str:
    """The suite's cases, as loaded and as planned (they must agree), or its error."""
    (folder / name).write_text(rows, encoding="utf-8")
    (folder / "suite.yaml").write_text(suite, encoding="utf-8")
    try:
        loaded = load_suite(folder / "suite.yaml")
    except ConfigError as exc:
        return str(exc)
    cases = list(loaded.cases)
    session = Session()
    session.add_suite(loaded)
    assert list(session.planned_cases()) == cases
    return cases


def _in_full(folder: Path, suite: str, rows: str, name: str = "rows.csv") -> list[TestCase] | str:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(_row_build, "_COPIED_KEYS", frozenset())  # no row copied
        return _loaded(folder, suite, rows, name)


def _fingerprint(folder: Path) -> str:
    """The plan's fingerprint, read as a plan reads the rows (`planned`) and as made cases."""
    session = Session()
    session.add_suite(load_suite(folder / "suite.yaml"))
    fingerprint = Survey.of(session.planned_cases(), fingerprint=True).fingerprint
    assert fingerprint == plan_fingerprint(list(session.planned_cases()))
    assert fingerprint is not None
    return fingerprint


_CELLS = st.text(alphabet=st.sampled_from(list("ab ,\"'{}%#|\n\\ü✓()[].*+")), max_size=6)
_TEMPLATES = st.sampled_from(
    [
        "{{ capital }}",
        "{{capital}}, of {{ country }}",
        "{{ capital | upper }}",  # Jinja's, not the plain substitution
        "{{ capitol }}",  # no such column
        "({{ capital }})+",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    check=st.sampled_from(["contains", "not_contains", "regex", "exact_match", "contains_any"]),
    template=_TEMPLATES,
    rows=st.lists(st.tuples(_CELLS, _CELLS), min_size=1, max_size=8),
)
def test_rows_with_a_templated_check_are_what_a_full_build_gives(
    check: str, template: str, rows: list[tuple[str, str]]
) -> None:
    suite, text = _suite(check, template), _csv(rows)
    with tempfile.TemporaryDirectory() as temp:
        copied = _loaded(Path(temp), suite, text)
        assert copied == _in_full(Path(temp), suite, text)
        if not isinstance(copied, str):
            full = _fingerprint(Path(temp))
            with pytest.MonkeyPatch.context() as patched:
                patched.setattr(_row_build, "_COPIED_KEYS", frozenset())
                assert _fingerprint(Path(temp)) == full


COLUMNS = """\
columns:
  capital: {type: CHECK, case_insensitive: true}
"""


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    check=st.sampled_from(["contains", "regex", "ends_with", "contains_any", "tool_called"]),
    rows=st.lists(st.tuples(_CELLS, _CELLS), min_size=1, max_size=8),
)
def test_rows_with_a_column_check_are_what_a_full_build_gives(
    check: str, rows: list[tuple[str, str]]
) -> None:
    suite = _suite(template="{{ country }}") + COLUMNS.replace("CHECK", check)
    text = _csv(rows)
    with tempfile.TemporaryDirectory() as temp:
        assert _loaded(Path(temp), suite, text) == _in_full(Path(temp), suite, text)


_SETTINGS = st.sampled_from(
    # Mostly the same settings, so that rows are copied; sometimes ones equal but of another
    # type (1 and True), which validation tells apart.
    [{}, {}, {}, {"weight": 1}, {"weight": True}, {"weight": 1.0}, {"case_insensitive": 1}]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["contains", "starts_with", "regex"]),
    rows=st.lists(st.tuples(_CELLS, _SETTINGS), min_size=3, max_size=8),
)
def test_jsonl_rows_with_checks_of_their_own_are_what_a_full_build_gives(
    kind: str, rows: list[tuple[str, dict[str, Any]]]
) -> None:
    lines = []
    for n, (value, written) in enumerate(rows):
        own = [{"type": kind, "value": value, **written}]
        lines.append(json.dumps({"id": f"r{n}", "vars": {"country": f"L{n}"}, "checks": own}))
    text, suite = "\n".join(lines) + "\n", _suite(template="{{ country }}", rows="rows.jsonl")
    with tempfile.TemporaryDirectory() as temp:
        copied = _loaded(Path(temp), suite, text, "rows.jsonl")
        assert copied == _in_full(Path(temp), suite, text, "rows.jsonl")


def test_rows_after_the_first_two_are_copied_with_their_own_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str | None] = []

    def counted(fields: Any, *rest: Any) -> TestCase:
        built.append(fields.id)
        return build_case(fields, *rest)

    rows = [(f"Land{n}", f"City{n}") for n in range(6)]
    monkeypatch.setattr(_loader, "build_case", counted)
    cases = _loaded(tmp_path, _suite(), _csv(rows))
    assert isinstance(cases, list)
    # Loaded, read, then planned: each time the first two rows are built, the rest copied.
    assert built == ["r0", "r1"] * 3
    assert [case.grading.checks[0].value for case in cases] == [f"City{n}" for n in range(6)]
    assert cases[5].grading.checks[1] is cases[4].grading.checks[1]  # the shared check
    assert cases[5].grading.checks[0].compiled is not cases[4].grading.checks[0].compiled


def test_an_empty_cell_in_a_copied_row_is_located(tmp_path: Path) -> None:
    rows = [("Land0", "City0"), ("Land1", "City1"), ("Land2", "City2"), ("Land3", "")]
    error = _loaded(tmp_path, _suite(), _csv(rows))
    assert isinstance(error, str)
    assert "rows.csv:5" in error
    assert "needs a non-empty string (after filling in the template)" in error
    assert error == _in_full(tmp_path, _suite(), _csv(rows))


def test_a_missing_column_in_a_copied_jsonl_row_is_located(tmp_path: Path) -> None:
    row = '{{"id": "r{n}", "vars": {{"country": "L{n}", "capital": "C{n}"}}}}'
    lines = [row.format(n=n) for n in range(4)]
    lines.append('{"id": "r4", "vars": {"country": "L4"}}')
    text = "\n".join(lines) + "\n"
    suite = _suite(rows="rows.jsonl")
    error = _loaded(tmp_path, suite, text, "rows.jsonl")
    assert isinstance(error, str)
    assert "rows.jsonl:5" in error
    assert "'capital' is undefined" in error
    assert error == _in_full(tmp_path, suite, text, "rows.jsonl")
