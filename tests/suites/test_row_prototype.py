"""Data rows built by copying their suite's first row: the same cases as built in full, and
every row's mistakes still located."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from promptum import Session
from promptum.cases import TestCase
from promptum.errors import ConfigError
from promptum.suites import _loader, _row_build, load_suite

SUITE = """\
name: rows
models: [m1]
system: "You greet {{ name }}."
prompt: "Say hello to {{ name }}"
defaults:
  checks:
    - {type: contains, value: Hello}
    - {type: expr, value: "latency_ms < 100 or vars['name'] != ''"}
cases_from: rows.csv
"""

ROWS = """\
id,name,query,system
a,Ann,,
,Bob,,
c,Cy,Hi {{ name }},
d,Di,,Be brief with {{ name }}.
e,Ed,Hi {{ name }},
f,Flo,,
g,Gil,,
h,Hal,,
"""


def _cases(folder: Path, rows: str, suite: str = SUITE) -> list[TestCase]:
    (folder / "rows.csv").write_text(rows, encoding="utf-8")
    (folder / "suite.yaml").write_text(suite, encoding="utf-8")
    return list(load_suite(folder / "suite.yaml").cases)


def _in_full(
    folder: Path, monkeypatch: pytest.MonkeyPatch, rows: str, suite: str = SUITE
) -> list[TestCase]:
    with monkeypatch.context() as patched:
        patched.setattr(_row_build, "_COPIED_KEYS", frozenset())  # no row copied
        return _cases(folder, rows, suite)


def test_copied_rows_are_the_cases_a_full_build_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str | None] = []
    full_build = _loader.build_case

    def counted(fields: Any, *rest: Any) -> TestCase:
        built.append(fields.id)
        return full_build(fields, *rest)

    with monkeypatch.context() as patched:
        patched.setattr(_loader, "build_case", counted)
        copied = _cases(tmp_path, ROWS)
    # Rows g and h are copies, when loaded and when read: the first two rows alike (a, f)
    # were built in full.
    assert built == ["a", None, "c", "d", "e", "f"] * 2
    assert copied == _in_full(tmp_path, monkeypatch, ROWS)
    assert [case.id for case in copied] == ["a", "rows-2", "c", "d", "e", "f", "g", "h"]
    assert copied[7].messages[0].content == "You greet Hal."
    assert copied[7].messages[1].content == "Say hello to Hal"
    assert copied[4].messages[1].content == "Hi Ed"
    assert copied[7].source is not None
    assert copied[7].source.endswith("rows.csv:9")


def test_a_check_filled_from_a_row_is_each_row_s_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = SUITE.replace("value: Hello}", "value: '{{ name }}'}")
    cases = _cases(tmp_path, ROWS, suite)
    assert [case.grading.checks[0].value for case in cases] == [
        "Ann",
        "Bob",
        "Cy",
        "Di",
        "Ed",
        "Flo",
        "Gil",
        "Hal",
    ]
    assert cases == _in_full(tmp_path, monkeypatch, ROWS, suite)


def test_a_template_mistake_in_a_later_row_is_located(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        _cases(tmp_path, ROWS + "i,Ivy,Hi {{ name,\n")
    assert "rows.csv:10" in str(error.value)
    assert "query" in str(error.value)


def test_a_reserved_column_in_a_later_row_is_located(tmp_path: Path) -> None:
    rows = "id,name,canary\n" + "".join(f"r{i},n{i},\n" for i in range(4))
    with pytest.raises(ConfigError) as error:
        _cases(tmp_path, rows)
    assert "rows.csv:2: vars.canary:" in str(error.value)
    assert str(error.value).endswith("(the same at 3 more lines: 3, 4, 5)")  # said once


def test_an_undefined_variable_in_a_later_row_s_query_is_located(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as error:
        _cases(tmp_path, ROWS + "i,Ivy,,\nj,Jo,Hi {{ nobody }},\n")
    assert "rows.csv:11" in str(error.value)


def test_a_run_s_overrides_reach_every_copied_row(tmp_path: Path) -> None:
    _cases(tmp_path, ROWS)
    session = Session()
    session.add_suite(load_suite(tmp_path / "suite.yaml"))
    session.override(models=["other/m"], repeat=2)
    planned = list(session.planned_cases())
    loaded = list(load_suite(tmp_path / "suite.yaml").cases)
    assert planned == [replace(case, models=("other/m",), repeat=2) for case in loaded]
    assert [case.messages[-1].content for case in planned][-2:] == [
        "Say hello to Gil",
        "Say hello to Hal",
    ]


def test_a_jsonl_row_after_copied_rows_is_still_validated(tmp_path: Path) -> None:
    good = "".join(f'{{"id": "r{i}", "vars": {{"name": "n{i}"}}}}\n' for i in range(4))
    (tmp_path / "rows.jsonl").write_text(good + '{"id": "", "vars": 5}\n', encoding="utf-8")
    suite = SUITE.replace("rows.csv", "rows.jsonl")
    (tmp_path / "suite.yaml").write_text(suite, encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_suite(tmp_path / "suite.yaml")
    assert "rows.jsonl:5" in str(error.value)
    assert "vars" in str(error.value)
