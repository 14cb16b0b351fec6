"""`promptum view --reviewer` refuses a name no review could carry, before serving anything."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore


def test_a_reviewer_name_too_long_to_store_is_refused_at_start(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    RunStore(db)
    done = CliRunner().invoke(main, ["view", "--db", str(db), "--reviewer", "a" * 201])
    assert done.exit_code == 2, done.output
    assert "--reviewer: at most 200 characters" in done.output
    assert "promptum viewer of" not in done.output  # nothing served
