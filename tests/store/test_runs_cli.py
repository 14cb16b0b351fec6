"""`promptum runs list|show|delete|export` against a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.reporting import load_run
from promptum.store import RunStore
from tests.store.samples import GPT, make_run, mixed_outcomes
from tests.store.test_store import record
from tests.support.cli import exit_code_and_output, usage_error


def test_list_shows_runs_newest_first(db: Path) -> None:
    code, out = exit_code_and_output("runs", "list", "--db", str(db))
    assert code == 0
    assert out.index("run-new") < out.index("run-old")
    assert "complete" in out


def test_list_reads_promptum_db_from_the_environment(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMPTUM_DB", str(db))
    code, out = exit_code_and_output("runs", "list", "--model", GPT, "-n", "1")
    assert code == 0
    assert "run-new" in out
    assert "run-old" not in out


def test_show_prints_the_summary_and_flaky_cases(db: Path) -> None:
    code, out = exit_code_and_output("runs", "show", "latest", "--db", str(db))
    assert code == 0
    for shown in ("run run-new · complete", "Flaky cases (2)", "capital-2", "passed 2 of 3"):
        assert shown in out


def test_export_writes_the_json_report_format(db: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "run.json"
    code, out = exit_code_and_output(
        "runs", "export", "run-old", "--db", str(db), "-o", str(target)
    )
    assert code == 0, out
    exported = load_run(target)
    assert exported.run_id == "run-old"
    assert len(exported.results) == len(make_run("x", mixed_outcomes()).results)
    assert json.loads(target.read_text())["results"][0]["check_results"]


def test_delete_asks_then_deletes(db: Path) -> None:
    done = CliRunner().invoke(main, ["runs", "delete", "run-old", "--db", str(db)], input="n\n")
    assert done.exit_code == 1  # aborted
    assert len(RunStore(db).list_runs()) == 2
    code, out = exit_code_and_output("runs", "delete", "run-old", "--db", str(db), "--yes")
    assert code == 0
    assert "deleted run-old" in out
    assert [r.run_id for r in RunStore(db).list_runs()] == ["run-new"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["runs", "show", "nope"], "no run 'nope'"),
        (["runs", "export", "run", "-o", "x.json"], "ambiguous"),
        (["runs", "export", "run-old", "-o", "x.pdf"], "unknown report format"),
    ],
)
def test_user_errors_exit_2_without_a_traceback(db: Path, args: list[str], message: str) -> None:
    assert message in usage_error(*args, "--db", str(db))


def test_a_missing_store_is_explained_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    code, out = exit_code_and_output("runs", "list", "--db", str(missing))
    assert code == 2
    assert "no run store yet" in out
    assert not missing.exists()


def test_report_renders_a_stored_run(db: Path, tmp_path: Path) -> None:
    out_file = tmp_path / "again.json"
    code, out = exit_code_and_output("report", "latest", "-o", str(out_file), "--db", str(db))
    assert code == 0, out
    assert load_run(out_file).run_id == "run-new"


def test_report_of_an_unknown_run_is_a_clear_error(db: Path, tmp_path: Path) -> None:
    code, out = exit_code_and_output(
        "report", "no-such-run", "-o", str(tmp_path / "x.md"), "--db", str(db)
    )
    assert code == 2
    assert "no-such-run" in out
    assert "Traceback" not in out


def test_list_keeps_run_ids_whole_in_a_narrow_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The id is what every other command takes: it must never be cut to "3f2a9c…".
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "runs.sqlite"
    run = make_run("3f2a9c1b7d4e", mixed_outcomes(), suite="a rather long suite name for the team")
    record(RunStore(path), run)
    code, out = exit_code_and_output("runs", "list", "--db", str(path))
    assert code == 0
    assert "3f2a9c1b7d4e" in out
