"""The history example shown in docs/history.md runs on the embedded model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from promptum.store import RunStore

pytestmark = pytest.mark.embedded_model

EXAMPLE = Path(__file__).parents[2] / "examples" / "history.py"


@pytest.mark.slow
def test_the_history_example_records_and_compares_two_runs(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(db)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    runs = RunStore(db).list_runs()
    assert len(runs) == 2
    assert all(run.total == 3 and run.state == "complete" for run in runs)
    assert "## promptum compare:" in done.stdout
    assert "history of 'capital': [" in done.stdout
