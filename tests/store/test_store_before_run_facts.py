"""A store whose runs kept their facts in `config` (promptum before typed run facts)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from promptum.store import RunStore

# Written by promptum at commit b06c4af: an interrupted, resumed run of 3 planned results
# with a warning, recorded at a dirty commit; results arrived in reverse order.
OLD_STORE = Path(__file__).parent.parent / "data" / "runs-before-run-facts.sqlite"


def test_run_facts_move_from_config_to_their_own_fields(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    run = RunStore(path).load("facts0000001")
    assert run.planned_results == 3
    assert run.resumed is True
    assert run.warnings == ["responses were not cached"]
    assert (run.git_commit, run.git_dirty) == ("0123456789abcdef0123", True)
    assert run.config == {"concurrency": 4, "fail_under": 0.5}
    assert [r.case_id for r in run.results] == ["c0", "c1"]  # plan order, as it was stored
    with sqlite3.connect(path) as connection:
        (config,) = connection.execute("SELECT config FROM runs").fetchone()
    assert "planned_results" not in config


def test_a_migrated_run_keeps_its_place_in_the_history(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    store = RunStore(path)
    (summary,) = store.list_runs()
    assert (summary.total, summary.passed, summary.failed) == (2, 1, 1)
    assert summary.revision == "0123456789+dirty"
