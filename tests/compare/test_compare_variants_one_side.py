"""Comparing two runs says which prompt variant (or model) only one of them has: not compared."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from click.testing import CliRunner

from promptum.cli import main
from promptum.compare import compare_runs, comparison_html, comparison_markdown
from promptum.store import RunStore
from promptum.values.run_result import RunResult
from tests.store.samples import GPT, LOCAL, T0, make_result
from tests.store.test_store import record

CASES = ("capital-0", "capital-1", "capital-2")


def run_of(run_id: str, columns: list[tuple[str, str | None]], hours: int = 0) -> RunResult:
    """A finished run where every case passes on each (model, variant) column."""
    results = [
        make_result(case_id, model, "pass").model_copy(update={"variant": variant, "suite": "geo"})
        for model, variant in columns
        for case_id in CASES
    ]
    started = T0 + timedelta(hours=hours)
    return RunResult(
        run_id=run_id,
        suite="geo",
        models=list(dict.fromkeys(model for model, _ in columns)),
        started_at=started,
        finished_at=started + timedelta(seconds=42),
        results=results,
    )


BEFORE = run_of("before", [(LOCAL, "v1"), (LOCAL, "v2")])
AFTER = run_of("after", [(LOCAL, "v1"), (LOCAL, "v3")], hours=1)
V2_ONLY_IN_A = f"{LOCAL} · v2 ran only in A (B has no results of it): not compared"
V3_ONLY_IN_B = f"{LOCAL} · v3 ran only in B (A has no results of it): not compared"


def test_a_variant_on_one_side_only_is_named_as_not_compared() -> None:
    compared = compare_runs(BEFORE, AFTER)
    assert [pair.name for pair in compared.models] == [f"{LOCAL} · v1"]
    assert [(s.model, s.variant) for s in compared.unpaired_a] == [(LOCAL, "v2")]
    assert [(s.model, s.variant) for s in compared.unpaired_b] == [(LOCAL, "v3")]
    assert compared.unpaired == [V2_ONLY_IN_A, V3_ONLY_IN_B]
    markdown = comparison_markdown(compared)
    assert V2_ONLY_IN_A in markdown
    assert V3_ONLY_IN_B in markdown
    html = comparison_html(compared)
    assert V2_ONLY_IN_A in html
    assert V3_ONLY_IN_B in html


def test_a_model_on_one_side_only_is_named_too() -> None:
    before = run_of("before", [(LOCAL, None), (GPT, None)])
    after = run_of("after", [(LOCAL, None)], hours=1)
    assert compare_runs(before, after).unpaired == [
        f"{GPT} ran only in A (B has no results of it): not compared"
    ]


def test_nothing_is_said_when_every_column_is_paired_or_the_pairs_were_chosen() -> None:
    assert compare_runs(BEFORE, BEFORE).unpaired == []
    chosen = compare_runs(BEFORE, AFTER, [(f"{LOCAL} · v1", f"{LOCAL} · v3")])
    assert chosen.unpaired == []


def test_the_cli_says_so_in_text_and_json(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    record(store, BEFORE)
    record(store, AFTER)
    runner = CliRunner()
    text = runner.invoke(main, ["compare", "before", "after", "--db", str(db)])
    assert text.exit_code == 0, text.output
    assert V2_ONLY_IN_A in text.output
    assert V3_ONLY_IN_B in text.output

    result = runner.invoke(main, ["compare", "before", "after", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    left_out = json.loads(result.stdout)["not_compared"]
    assert left_out == {
        "a": [{"model": LOCAL, "variant": "v2", "column": f"{LOCAL} · v2"}],
        "b": [{"model": LOCAL, "variant": "v3", "column": f"{LOCAL} · v3"}],
    }
