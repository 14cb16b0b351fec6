"""`promptum judge calibrate` on too few labels: figures it cannot give are said, not faked."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record


def test_one_label_gives_no_interval_and_keeps_the_judges_threshold(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    record(store, make_run("run-a", mixed_outcomes()))
    # The judge passed capital-0 (score 0.9 at threshold 0.7); the reviewer says bad.
    store.add_review(Review("run-a", "capital-0", None, LOCAL, 1, verdict="bad", reviewer="ada"))
    done = CliRunner().invoke(main, ["judge", "calibrate", "--json", "--db", str(db)])
    assert done.exit_code == 0, done.output
    (row,) = json.loads(done.output)["calibration"]
    # n=1, b=1: p_o=0, p_e=(1*0 + 0*1)/1=0, kappa=0; Cohen's SE is 0: no interval.
    # Thresholds: 0.9 (passes it, disagrees), 0.7 (the judge's, disagrees), 1 (fails it,
    # agrees): 1 with agreement 1.
    assert (row["n"], row["agreement"], row["kappa"], row["kappa_ci95"]) == (
        1,
        0.0,
        0.0,
        [None, None],
    )
    assert (row["threshold"], row["threshold_agreement"]) == (1.0, 1.0)
    table = CliRunner().invoke(main, ["judge", "calibrate", "--db", str(db)])
    assert table.exit_code == 0, table.output
    flat = " ".join(table.output.split())
    assert "0.00 [-, -]" in flat
    assert "[-, -]: every label agreed (or none did)" in flat
    assert "Traceback" not in table.output
