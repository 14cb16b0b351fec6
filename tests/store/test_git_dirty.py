"""A run records whether the project's tracked files had uncommitted changes, beside the commit."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.store import MIGRATIONS, RunStore
from tests.store.samples import make_run, mixed_outcomes
from tests.store.test_store import record

OLD_STORE = Path(__file__).parent.parent / "data" / "runs-before-grades.sqlite"


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one committed suite; the working directory."""
    folder = tmp_path / "project"
    folder.mkdir()
    git(folder, "init", "-q")
    (folder / "suite.yaml").write_text("test_cases: []\n")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "suite")
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "runs.sqlite")


def test_a_clean_tree_is_recorded_clean(project: Path, store: RunStore) -> None:
    # Untracked files are not changes (as for `git describe --dirty`): `.promptum/` is one
    # until it is ignored.
    (project / "notes.txt").write_text("not tracked")
    record(store, make_run("clean", mixed_outcomes()))
    summary = store.summary("clean")
    head = git(project, "rev-parse", "HEAD")
    assert (summary.git_commit, summary.git_dirty) == (head, False)
    assert summary.revision == head[:10]
    assert store.load("clean").git_dirty is False


@pytest.mark.parametrize("staged", [False, True])
def test_uncommitted_changes_are_recorded_dirty(
    project: Path, store: RunStore, staged: bool
) -> None:
    (project / "suite.yaml").write_text("test_cases: [{id: a, query: q}]\n")
    if staged:
        git(project, "add", "suite.yaml")
    record(store, make_run("changed", mixed_outcomes()))
    summary = store.summary("changed")
    head = git(project, "rev-parse", "HEAD")
    assert (summary.git_commit, summary.git_dirty) == (head, True)
    assert summary.revision == f"{head[:10]}+dirty"
    assert store.load("changed").git_dirty is True


def test_history_commands_show_the_dirty_tree(project: Path, store: RunStore) -> None:
    (project / "suite.yaml").write_text("changed\n")
    record(store, make_run("changed", mixed_outcomes()))
    head = git(project, "rev-parse", "HEAD")
    db = str(store.path)
    listed = CliRunner().invoke(main, ["runs", "list", "--db", db])
    assert f"{head[:10]}+dirty" in listed.output
    shown = CliRunner().invoke(main, ["runs", "show", "changed", "--db", db])
    assert f"commit {head[:10]}+dirty" in shown.output
    as_json = json.loads(CliRunner().invoke(main, ["runs", "list", "--db", db, "--json"]).stdout)
    assert as_json["runs"][0]["git_commit"] == head
    assert as_json["runs"][0]["git_dirty"] is True


def test_outside_a_repository_nothing_is_claimed(
    tmp_path: Path, store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    record(store, make_run("outside", mixed_outcomes()))
    summary = store.summary("outside")
    assert (summary.git_commit, summary.git_dirty, summary.revision) == (None, None, "")
    assert store.load("outside").git_dirty is None


def test_a_store_from_before_gets_the_column_and_claims_nothing(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    runs = RunStore(path).list_runs()
    assert runs
    assert all(run.git_dirty is None for run in runs)
    with sqlite3.connect(path) as connection:
        applied = [row[0] for row in connection.execute("SELECT name FROM schema_migrations")]
    assert applied == [m.name for m in MIGRATIONS]
    assert "0002_runs_git_dirty" in applied
