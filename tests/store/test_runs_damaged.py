"""A run whose record no promptum wrote (a hand edit, a planted file) is named with how to
remove it, on every command that reads it: never a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.errors import StoreError
from promptum.store import RunStore
from tests.store.samples import make_run, mixed_outcomes
from tests.store.test_store import record


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("started_at", "garbage", "Invalid isoformat string"),
        ("models", "{bad", "Expecting property name"),
        ("config", "[]", "config: Input should be a valid dictionary"),
    ],
)
def test_a_damaged_run_record_is_named_with_how_to_remove_it(
    tmp_path: Path, column: str, value: str, said: str
) -> None:
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    record(store, make_run("run-a", mixed_outcomes(cases=1, repeats=1)))
    record(store, make_run("run-b", mixed_outcomes(cases=1, repeats=1)))
    with sqlite3.connect(db) as connection:
        connection.execute(f"UPDATE runs SET {column} = ? WHERE run_id = 'run-a'", (value,))
    with pytest.raises(StoreError, match=said) as raised:
        store.load("run-a")
    assert "`promptum runs delete run-a` removes it" in str(raised.value)
    assert store.load("run-b").run_id == "run-b"  # the others still read
    commands = [["runs", "show", "run-a"], ["compare", "run-a", "run-b"]]
    if column != "config":  # the list reads no config
        commands.append(["runs", "list"])
    for command in commands:
        done = CliRunner().invoke(main, [*command, "--db", str(db)])
        assert done.exit_code == 2, (command, done.output)
        assert "the record of run run-a cannot be read" in done.output
        assert "Traceback" not in done.output
