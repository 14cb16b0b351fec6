"""`promptum compare` on a real store and on results files: tables, Markdown, HTML, exit codes."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from promptum.reporting import write_report
from promptum.store import RunStore
from tests.store.samples import GPT, LOCAL, T0, make_run
from tests.store.test_store import record
from tests.support.cli import exit_code_and_output, usage_error

CASES = [f"case-{i}" for i in range(30)]


def outcomes(failing: set[int], model: str = LOCAL) -> dict[tuple[str, str], list[str]]:
    return {(case, model): ["fail" if i in failing else "pass"] for i, case in enumerate(CASES)}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    both = {**outcomes({1}), **outcomes({1, 2}, GPT)}
    record(store, make_run("base", both, started=T0))
    # One case wobbles: not significant.
    record(store, make_run("wobble", outcomes({1, 5}), started=T0 + timedelta(hours=1)))
    # Ten cases break: a real regression.
    broken = outcomes({1, *range(10, 20)})
    record(store, make_run("broken", broken, started=T0 + timedelta(hours=2)))
    return path


def test_a_wobble_passes_ci(db: Path) -> None:
    code, out = exit_code_and_output(
        "compare", "base", "wobble", "--db", str(db), "--fail-on-regression"
    )
    assert code == 0, out
    assert "no significant change" in out
    assert "Regressed (1)" in out
    assert "case-5: pass → fail" in out


def test_a_significant_regression_fails_ci(db: Path, tmp_path: Path) -> None:
    md, html = tmp_path / "cmp.md", tmp_path / "cmp.html"
    code, out = exit_code_and_output(
        "compare", "base", "latest", "--db", str(db), "--fail-on-regression",
        "-o", str(md), "-o", str(html),
    )  # fmt: skip
    assert code == 1, out
    assert "Significant regression" in out
    assert "Regressed (10)" in out
    assert "-33.3 pp" in out
    markdown = md.read_text()
    assert "🔻" in markdown
    assert "**Regressed (10)**" in markdown
    page = html.read_text()
    assert "Content-Security-Policy" in page
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # Without the flag, the same comparison is informational.
    code, _ = exit_code_and_output("compare", "base", "broken", "--db", str(db))
    assert code == 0


def test_two_models_of_one_run(db: Path) -> None:
    code, out = exit_code_and_output(
        "compare", "base", "--model-a", LOCAL, "--model-b", GPT, "--db", str(db)
    )
    assert code == 0, out
    assert f"{LOCAL} @ base → {GPT} @ base" in out
    assert "case-2: pass → fail" in out


def test_a_results_file_against_a_stored_run(db: Path, tmp_path: Path) -> None:
    exported = tmp_path / "baseline.json"
    write_report(make_run("from-file", outcomes(set())), exported)
    code, out = exit_code_and_output("compare", str(exported), "wobble", "--db", str(db))
    assert code == 0, out
    assert "B=wobble against A=from-file" in out
    assert "Regressed (2)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["compare", "base", "nope"], "no run 'nope'"),
        (["compare", "base", "missing.json"], "missing.json: no such file"),
        (["compare", "base", "wobble", "-o", "x.pdf"], "write a comparison as .md or .html"),
        (["compare", "base", "--model-a", LOCAL], "give both --model-a and --model-b"),
        (["compare", "base", "--model-a", LOCAL, "--model-b", "x/y"], "no results of model 'x/y'"),
    ],
)
def test_bad_input_is_explained(db: Path, args: list[str], message: str) -> None:
    assert message in usage_error(*args, "--db", str(db))


def test_case_ids_are_printed_literally_not_as_markup(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    tricky = "[bold red]tricky[/bold red]"
    store = RunStore(db)
    record(store, make_run("a", {(tricky, LOCAL): ["pass"]}))
    record(store, make_run("b", {(tricky, LOCAL): ["fail"]}, started=T0 + timedelta(hours=1)))
    code, out = exit_code_and_output("compare", "a", "b", "--db", str(db))
    assert code == 0
    assert f"{tricky}: pass → fail" in out
