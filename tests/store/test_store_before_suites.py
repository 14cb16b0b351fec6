"""A store from before suites and variants keyed results: migrated, repeats counted from 1."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from promptum.store import RunStore

OLD_STORE = Path(__file__).parent.parent / "data" / "runs-before-grades.sqlite"


def test_old_results_get_suite_variant_and_repeats_from_one(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    with sqlite3.connect(path) as connection:
        before = sorted(connection.execute("SELECT case_id, model, repeat FROM results"))
    store = RunStore(path)
    with sqlite3.connect(path) as connection:
        after = sorted(
            connection.execute("SELECT case_id, model, repeat, suite, variant FROM results")
        )
    assert after == [(c, m, n + 1, "", "") for c, m, n in before]
    run = store.load("latest")
    assert run.results
    assert all(r.repeat >= 1 and r.suite is None for r in run.results)
    assert [r.key for r in run.results] == [r.case_id for r in run.results]
    entries = store.case_history(run.results[0].case_id)
    assert entries
    assert entries[0].result.repeat >= 1
