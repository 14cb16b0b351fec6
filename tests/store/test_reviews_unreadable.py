"""A reviewed result this promptum cannot read: calibration says so, with no traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record


def test_calibrating_over_an_unreadable_result_is_an_error_not_a_traceback(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    record(store, make_run("run-a", mixed_outcomes()))
    store.add_review(Review("run-a", "capital-0", None, LOCAL, 1, verdict="bad", reviewer="ada"))
    with sqlite3.connect(db) as connection:  # as a newer promptum might have written it
        connection.execute(
            "UPDATE results SET data = json_set(data, '$.status', 'maybe')"
            " WHERE case_id = 'capital-0' AND repeat = 1 AND model = ?",
            (LOCAL,),
        )
    done = CliRunner().invoke(main, ["judge", "calibrate", "--db", str(db)])
    assert done.exit_code == 2, done.output
    assert "a reviewed result cannot be read" in done.output
    assert "Traceback" not in done.output
