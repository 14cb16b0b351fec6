"""The run store on real SQLite files: round trips, streaming writes, crashes, two writers,
migrations, run references, history and deletion."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest

from promptum.store import MIGRATIONS, Migration, RunStore, StoreError, migrate
from promptum.values.run_result import RunResult
from tests.store.samples import GPT, LOCAL, T0, make_result, make_run, mixed_outcomes

SRC = Path(__file__).resolve().parents[2] / "src"
ROOT = Path(__file__).resolve().parents[2]


def record(store: RunStore, run: RunResult) -> None:
    """Feed a run through the recorder the way the runner does."""
    recorder = store.recorder()
    results, run = run.results, run.model_copy(update={"results": []})
    recorder.start(run)
    for result in results:
        run.results.append(result)
        recorder.add(result)
    recorder.finish(run)


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "history" / "runs.sqlite")


def test_a_recorded_run_loads_back_whole(store: RunStore) -> None:
    run = make_run("run-a", mixed_outcomes())
    record(store, run)

    loaded = store.load("run-a")

    assert [r.model_dump() for r in loaded.results] == [r.model_dump() for r in run.results]
    assert loaded.models == [LOCAL, GPT]
    assert loaded.started_at == run.started_at
    assert loaded.finished_at == run.finished_at
    assert loaded.complete
    assert loaded.suite == "geo"
    assert loaded.config["suites"] == ["suites/geo.yaml"]
    assert loaded.stats() == run.stats()


def test_each_result_is_readable_as_soon_as_it_is_added(store: RunStore) -> None:
    run = make_run("streaming", mixed_outcomes())
    recorder = store.recorder()
    recorder.start(run.model_copy(update={"results": [], "finished_at": None}))
    for result in run.results[:4]:
        recorder.add(result)

    # Another connection (the viewer, another process) sees the run while it is running.
    reader = RunStore(store.path)
    summary = reader.summary("streaming")
    assert summary.total == 4
    assert summary.state == "unfinished"
    assert [r.case_id for r in reader.load("streaming").results] == [
        r.case_id for r in run.results[:4]
    ]
    recorder.finish(run)
    assert reader.summary("streaming").state == "complete"


CRASHING_WRITER = textwrap.dedent(
    """
    import os, sys
    sys.path[:0] = [{src!r}, {root!r}]
    from promptum.store import RunStore
    from tests.store.samples import make_run, mixed_outcomes
    run = make_run("crashed", mixed_outcomes())
    recorder = RunStore(sys.argv[1]).recorder()
    recorder.start(run.model_copy(update={{"results": [], "finished_at": None}}))
    for result in run.results[:5]:
        recorder.add(result)
    os._exit(9)  # killed: no finish(), no close, no atexit
    """
)


def test_a_crash_loses_no_finished_result(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    script = CRASHING_WRITER.format(src=str(SRC), root=str(ROOT))
    done = subprocess.run([sys.executable, "-c", script, str(path)], check=False)
    assert done.returncode == 9

    store = RunStore(path)
    summary = store.summary("crashed")
    assert summary.total == 5
    assert summary.state == "unfinished"
    assert len(store.load("crashed").results) == 5


CONCURRENT_WRITER = textwrap.dedent(
    """
    import sys
    sys.path[:0] = [{src!r}, {root!r}]
    from promptum.store import RunStore
    from tests.store.samples import make_run, LOCAL, GPT
    run_id, path = sys.argv[1], sys.argv[2]
    outcomes = {{(f"case-{{i}}", m): ["pass", "fail"] for i in range(150) for m in (LOCAL, GPT)}}
    run = make_run(run_id, outcomes)
    recorder = RunStore(path).recorder()
    recorder.start(run.model_copy(update={{"results": []}}))
    for result in run.results:
        recorder.add(result)
    recorder.finish(run)
    """
)


def test_two_runs_writing_at_once_both_land_whole(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    script = CONCURRENT_WRITER.format(src=str(SRC), root=str(ROOT))
    writers = [
        subprocess.Popen([sys.executable, "-c", script, run_id, str(path)])
        for run_id in ("writer-1", "writer-2")
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0]

    store = RunStore(path)
    for run_id in ("writer-1", "writer-2"):
        summary = store.summary(run_id)
        assert (summary.total, summary.passed, summary.failed) == (600, 300, 300)
        assert summary.state == "complete"


def test_a_resumed_run_updates_its_results_in_place(store: RunStore) -> None:
    run = make_run("resumed", {("capital-0", LOCAL): ["fail", "pass"]})
    record(store, run)
    # `--resume` reuses the run id and sends the earlier results again, then new ones.
    again = run.model_copy(update={"results": [*run.results, make_result("extra", LOCAL, "pass")]})
    record(store, again)

    loaded = store.load("resumed")
    assert [(r.case_id, r.repeat) for r in loaded.results] == [
        ("capital-0", 1),
        ("capital-0", 2),
        ("extra", 1),
    ]


def test_list_runs_newest_first_with_counts_and_filters(store: RunStore) -> None:
    record(store, make_run("old", mixed_outcomes(), started=T0, suite="geo"))
    record(store, make_run("new", mixed_outcomes(), started=T0 + timedelta(hours=1), suite="geo"))
    only_local = {k: v for k, v in mixed_outcomes().items() if k[1] == LOCAL}
    record(
        store, make_run("maths", only_local, started=T0 + timedelta(hours=2), suite="maths suite")
    )

    runs = store.list_runs()
    assert [r.run_id for r in runs] == ["maths", "new", "old"]
    new = runs[1]
    expected = make_run("x", mixed_outcomes()).stats()
    assert new.total == sum(s.total for s in expected.values())
    assert new.passed == sum(s.passed for s in expected.values())
    assert new.errors == 1
    assert [r.run_id for r in store.list_runs(suite="MATHS")] == ["maths"]
    assert [r.run_id for r in store.list_runs(model=GPT)] == ["new", "old"]
    assert [r.run_id for r in store.list_runs(limit=1)] == ["maths"]


def test_run_references_prefix_latest_and_clear_errors(store: RunStore) -> None:
    record(store, make_run("abc123", mixed_outcomes(), started=T0))
    record(store, make_run("abd456", mixed_outcomes(), started=T0 + timedelta(hours=1)))

    assert store.resolve("abc") == "abc123"
    assert store.resolve("latest") == "abd456"
    assert store.resolve("latest~1") == "abc123"
    with pytest.raises(StoreError, match=r"ambiguous.*abd456.*abc123"):
        store.resolve("ab")
    with pytest.raises(StoreError, match=r"no run 'zzz'.*promptum runs list"):
        store.load("zzz")
    with pytest.raises(StoreError, match=r"no run 'latest~5'.*holds 2 run"):
        store.resolve("latest~5")


def test_delete_removes_the_run_and_its_results(store: RunStore) -> None:
    record(store, make_run("doomed", mixed_outcomes()))
    record(store, make_run("kept", mixed_outcomes()))

    assert store.delete("doom") == "doomed"

    assert [r.run_id for r in store.list_runs()] == ["kept"]
    with sqlite3.connect(store.path) as connection:
        left = connection.execute("SELECT DISTINCT run_id FROM results").fetchall()
    assert left == [("kept",)]


def test_case_history_across_runs(store: RunStore) -> None:
    record(store, make_run("first", {("capital-1", LOCAL): ["fail"], ("capital-1", GPT): ["pass"]}))
    later = T0 + timedelta(days=1)
    record(store, make_run("second", {("capital-1", LOCAL): ["pass"]}, started=later))

    history = store.case_history("capital-1")
    assert [(e.run_id, e.result.model, e.result.status) for e in history] == [
        ("second", LOCAL, "pass"),
        ("first", LOCAL, "fail"),
        ("first", GPT, "pass"),
    ]
    assert [e.run_id for e in store.case_history("capital-1", model=GPT)] == ["first"]
    assert store.case_history("no-such-case") == []


def test_migrations_are_named_ordered_and_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    RunStore(path)
    RunStore(path)  # opening again applies nothing twice
    with sqlite3.connect(path) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM schema_migrations")]
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
    assert names == [m.name for m in MIGRATIONS]
    assert mode == "wal"

    # A later migration is applied after the earlier ones, on a store that has data.
    record(RunStore(path), make_run("before", mixed_outcomes()))
    later = Migration("0002_results_by_model", "CREATE INDEX results_by_model ON results (model)")
    connection = sqlite3.connect(path, isolation_level=None)
    assert migrate(connection, path, [*MIGRATIONS, later]) == ["0002_results_by_model"]
    assert migrate(connection, path, [*MIGRATIONS, later]) == []
    indexes = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    kept = connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    connection.close()
    assert "results_by_model" in indexes
    assert kept == len(make_run("before", mixed_outcomes()).results)


def test_a_store_from_a_newer_promptum_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    RunStore(path)
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO schema_migrations VALUES ('0099_from_the_future', '2030-01-01')"
        )
    with pytest.raises(StoreError, match=r"newer promptum.*0099_from_the_future"):
        RunStore(path)


def test_a_file_that_is_not_a_store_gives_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match=r"notes\.sqlite: not a promptum run store"):
        RunStore(path)


def test_git_commit_is_recorded_inside_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    (project / "suite.yaml").write_text("cases: []\n")
    subprocess.run([*git, "add", "."], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "suite"], cwd=project, check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=project, capture_output=True, text=True, check=True
    ).stdout.strip()

    monkeypatch.chdir(project)
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, make_run("in-repo", mixed_outcomes()))
    monkeypatch.chdir(tmp_path)  # not a repository
    record(store, make_run("outside", mixed_outcomes()))

    assert store.summary("in-repo").git_commit == head
    assert store.load("in-repo").git_commit == head
    assert store.summary("outside").git_commit is None


def test_an_interrupted_run_is_kept_and_marked(store: RunStore) -> None:
    run = make_run("stopped", mixed_outcomes())
    record(store, run.model_copy(update={"complete": False}))
    summary = store.summary("stopped")
    assert summary.state == "interrupted"
    assert summary.total == len(run.results)
    assert not store.load("stopped").complete


def test_text_utf8_cannot_hold_is_stored_not_lost(store: RunStore) -> None:
    # A JSON API may send a lone surrogate escape; the result must still be kept.
    odd = make_result("odd", LOCAL, "pass")
    odd = odd.model_copy(
        update={"completion": odd.completion.model_copy(update={"text": "Paris \ud800 ok"})}
    )
    record(store, make_run("odd-run", {}).model_copy(update={"results": [odd], "models": [LOCAL]}))
    (loaded,) = store.load("odd-run").results
    assert loaded.completion.text == "Paris \ufffd ok"  # as every report writes it
    assert loaded.status == "pass"
