"""A store promptum may not write: said plainly (the migration it needs, what to do), exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from promptum.store import MIGRATIONS, migrate
from promptum.store._connect import connect
from tests.support.privileges import as_a_user

OLD_STORE = Path(__file__).parent.parent / "data" / "runs-before-run-facts.sqlite"


def _runs_list(db: Path) -> subprocess.CompletedProcess[str]:
    """`promptum runs list` as an ordinary user (root would write the read-only file)."""
    return subprocess.run(
        [sys.executable, "-m", "promptum", "runs", "list", "--db", str(db)],
        capture_output=True, text=True, timeout=60, preexec_fn=as_a_user(),
        env={**os.environ, "NO_COLOR": "1"},
    )  # fmt: skip


def test_an_old_read_only_store_names_the_migration_it_needs(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    connection = connect(path)
    before_reviews = [m.name for m in MIGRATIONS].index("0005_reviews")
    migrate(connection, path, MIGRATIONS[:before_reviews])
    connection.close()
    path.chmod(0o444)
    done = _runs_list(path)
    assert done.returncode == 2, done.stderr
    assert "needs migration 0005_reviews, but it is read-only" in done.stderr
    assert "copy it and point PROMPTUM_DB (or --db) at the copy" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_store_in_a_read_only_folder_is_not_called_another_file(tmp_path: Path) -> None:
    folder = tmp_path / "artifacts"
    folder.mkdir()
    shutil.copy(OLD_STORE, folder / "runs.sqlite")
    folder.chmod(0o555)
    try:
        done = _runs_list(folder / "runs.sqlite")
    finally:
        folder.chmod(0o755)
    assert done.returncode == 2, done.stderr
    assert "not a promptum run store" not in done.stderr
    assert "read-only" in done.stderr
    assert "Traceback" not in done.stderr
