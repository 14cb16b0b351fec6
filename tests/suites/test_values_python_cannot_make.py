"""A value Python cannot make (a number too long, a date that does not exist) is a located
load error, never a traceback."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.suites import load_suite

BIG = "9" * (sys.get_int_max_str_digits() + 1)
CASE = "  - id: a\n    query: hi\n    checks: [{type: contains, value: x}]\n"


def _validate(path: Path) -> str:
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 2, done.output
    assert isinstance(done.exception, SystemExit)  # said, not raised
    return done.output


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f"models: [local/smollm2]\ntest_cases:\n{CASE}    vars: {{n: {BIG}}}\n", ":6:15:"),
        (f"models: [local/smollm2]\nvars: {{n: {BIG}}}\ntest_cases:\n{CASE}", ":2:11:"),
        (  # an anchored case is composed into nodes rather than built from events
            f"models: [local/smollm2]\ntest_cases:\n  - &a\n    id: a\n    query: hi\n"
            f"    vars: {{n: {BIG}}}\n",
            ":6:15:",
        ),
    ],
    ids=["case", "suite-vars", "anchored-case"],
)
def test_in_yaml(tmp_path: Path, text: str, where: str) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(text, encoding="utf-8")
    output = _validate(suite)
    assert f"suite.yaml{where} invalid YAML: a number has more than" in output
    assert "quote it" in output


def test_in_a_jsonl_row(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text(
        f'{{"id": "a", "query": "hi"}}\n{{"id": "b", "query": "hi", "n": {BIG}}}\n',
        encoding="utf-8",
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text("models: [local/smollm2]\ncases_from: rows.jsonl\n", encoding="utf-8")
    assert "rows.jsonl:2: a number has more than" in _validate(suite)


def test_in_a_toml_case_file(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(
        f'id = "a"\nquery = "hi"\n\n[vars]\nn = {BIG}\n', encoding="utf-8"
    )
    assert "c.toml:5: a number has more than" in _validate(tmp_path)


@pytest.mark.parametrize(
    ("value", "why"),
    [("2001-02-30", "day is out of range"), ("2001-12-14 25:59:43", "hour must be in")],
)
@pytest.mark.parametrize("where", ["case", "suite"])
def test_a_date_that_does_not_exist(tmp_path: Path, value: str, why: str, where: str) -> None:
    suite = tmp_path / "suite.yaml"
    if where == "case":
        text = f"models: [local/smollm2]\ntest_cases:\n{CASE}    vars: {{d: {value}}}\n"
        at = ":6:15:"
    else:
        text = f"models: [local/smollm2]\nvars: {{d: {value}}}\ntest_cases:\n{CASE}"
        at = ":2:11:"
    suite.write_text(text, encoding="utf-8")
    output = _validate(suite)
    assert f"suite.yaml{at} invalid YAML: {value} is not a date: {why}" in output


def test_dates_that_exist_still_load(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"models: [local/smollm2]\ntest_cases:\n{CASE}"
        "    vars: {d: 2024-02-29, t: 2001-12-14 21:59:43}\n",
        encoding="utf-8",
    )
    (case,) = load_suite(suite).cases
    assert case.vars == {
        "d": datetime.date(2024, 2, 29),
        "t": datetime.datetime(2001, 12, 14, 21, 59, 43),
    }
