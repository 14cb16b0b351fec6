"""Run references out of range or malformed: a clear error (exit 2) everywhere one is taken."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore, StoreError
from tests.store.samples import make_run, mixed_outcomes
from tests.store.test_store import record

INT64_MAX = 2**63 - 1
BEYOND = [
    "latest~2",
    f"latest~{INT64_MAX}",  # fits SQLite's integers, far past the runs
    f"latest~{INT64_MAX + 1}",  # the first that overflows SQLite's OFFSET
    "latest~99999999999999999999",
]
MALFORMED = ["latest~-1", "latest~abc", "latest~", "latest~1.5", "latest~ 1", "latest~١"]


@pytest.mark.parametrize("ref", BEYOND)
def test_a_run_beyond_the_oldest_is_a_store_error(db: Path, ref: str) -> None:
    with pytest.raises(
        StoreError, match=r"no run 'latest~\d+'.*holds 2 run.*latest~1 is the oldest"
    ):
        RunStore(db).resolve(ref)


def test_an_empty_store_says_so(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"holds 0 run\(s\) \(it is empty\)"):
        RunStore(tmp_path / "runs.sqlite").resolve("latest")


@pytest.mark.parametrize("ref", MALFORMED)
def test_a_malformed_latest_says_what_n_must_be(db: Path, ref: str) -> None:
    with pytest.raises(StoreError, match=r"a whole number 0 or more \(latest~1 is the run"):
        RunStore(db).resolve(ref)


@pytest.mark.parametrize("ref", ["", "   "])
def test_an_empty_reference_names_no_run(db: Path, ref: str) -> None:
    # A blank prefix would match every run, and pick one when the store holds just one.
    with pytest.raises(StoreError, match="an empty run reference"):
        RunStore(db).resolve(ref)


def test_an_undecodable_reference_names_no_run(db: Path) -> None:
    # What Python makes of bytes on the command line that are not UTF-8.
    with pytest.raises(StoreError, match="no run"):
        RunStore(db).resolve("run-\udcff")


def test_valid_references_still_resolve(db: Path) -> None:
    store = RunStore(db)
    assert store.resolve("latest") == "run-new"
    assert store.resolve("latest~0") == "run-new"
    assert store.resolve("latest~01") == "run-old"
    assert store.resolve("run-o") == "run-old"


COMMANDS = [
    ["compare", "latest", "{ref}"],
    ["compare", "{ref}", "latest"],
    ["compare", "{ref}", "--model-a", "a", "--model-b", "b"],
    ["runs", "show", "{ref}"],
    ["runs", "export", "{ref}", "-o", "{tmp}/out.json"],
    ["runs", "delete", "{ref}", "--yes"],
    ["report", "{ref}", "-o", "{tmp}/out.html"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize(
    "ref", [*BEYOND[2:], "latest~-1", "latest~abc", "run-\udcff"], ids=lambda r: r[:20]
)
def test_every_command_taking_a_run_exits_2_with_the_reason(
    db: Path, tmp_path: Path, command: list[str], ref: str
) -> None:
    args = [part.format(ref=ref, tmp=tmp_path) for part in command]
    done = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert done.exit_code == 2, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert "error:" in done.output
    assert "Traceback" not in done.output
    assert ("whole number" in done.output) == ("~-1" in ref or "~abc" in ref)
    # Nothing was deleted or written on the way.
    assert [run.run_id for run in RunStore(db).list_runs()] == ["run-new", "run-old"]
    assert list(tmp_path.glob("out.*")) == []


@pytest.mark.parametrize("command", COMMANDS[3:6], ids=lambda c: " ".join(c[:2]))
def test_an_empty_reference_is_an_error_not_the_only_run(
    tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "runs.sqlite"
    record(RunStore(db), make_run("only", mixed_outcomes()))
    args = [part.format(ref="", tmp=tmp_path) for part in command]
    done = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert done.exit_code == 2, done.output
    assert "an empty run reference" in done.output
    assert [run.run_id for run in RunStore(db).list_runs()] == ["only"]
