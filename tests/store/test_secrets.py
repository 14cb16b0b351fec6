"""No API key reaches the store or anything exported from it, wherever it was put by mistake."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore, StoreError
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record

KEY = "sk-proj-Th1sIsAFakeKeyThatMustNeverBeWritten0123"
OTHER = "ghp_an0therFakeTokenFromTheEnvironment99"


def test_no_key_in_any_written_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", OTHER)
    config = {
        "suites": ["suites/geo.yaml"],
        "api_key": KEY,
        "endpoints": {
            "mine": {
                "base_url": "http://127.0.0.1:1",
                "headers": {"Authorization": f"Bearer {KEY}"},
            }
        },
        "params": [{"temperature": 0, "max_tokens": 32}],
    }
    run = make_run("leaky", mixed_outcomes(), config=config)
    first = run.results[0]
    # A user pasted the key into a prompt, and a provider echoed a token in an error.
    run.results[0] = first.model_copy(
        update={"messages": [*first.messages, Message(role="user", content=f"my key is {KEY}")]}
    )
    run.results[1] = run.results[1].model_copy(
        update={"completion": Completion(model=LOCAL, error=f"401: bad token {OTHER}")}
    )
    db = tmp_path / "store" / "runs.sqlite"
    record(RunStore(db), run)

    cli = CliRunner()
    for name in ("export.json", "export.html", "export.md", "export.csv"):
        done = cli.invoke(
            main, ["runs", "export", "leaky", "--db", str(db), "-o", str(tmp_path / name)]
        )
        assert done.exit_code == 0, done.output
    shown = cli.invoke(main, ["runs", "show", "leaky", "--db", str(db)])
    assert shown.exit_code == 0, shown.output

    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"runs.sqlite", "export.json", "export.html"}
    for path in written:
        content = path.read_bytes()
        assert KEY.encode() not in content, path
        assert OTHER.encode() not in content, path
    assert KEY not in shown.output
    assert OTHER not in shown.output

    loaded = RunStore(db).load("leaky")
    assert "api_key" not in loaded.config
    assert "Authorization" not in loaded.config["endpoints"]["mine"]["headers"]
    assert loaded.config["params"] == [{"temperature": 0, "max_tokens": 32}]
    assert loaded.results[0].messages[-1].content == "my key is [redacted]"
    assert loaded.results[1].completion.error == "401: bad token [redacted]"


def test_a_secret_equal_to_a_field_name_does_not_corrupt_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Secrets are replaced in the values, never in the JSON's field names: a store whose
    # results no longer validate would lose the run.
    monkeypatch.setenv("MY_TOKEN", "expected_behavior")
    db = tmp_path / "runs.sqlite"
    run = make_run("field-named", mixed_outcomes())
    record(RunStore(db), run)
    loaded = RunStore(db).load("field-named")
    assert [r.model_dump() for r in loaded.results] == [r.model_dump() for r in run.results]


def test_unreadable_stored_results_are_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    record(RunStore(db), make_run("broken", mixed_outcomes()))
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE results SET data = '{\"case_id\": 1}'"
            " WHERE seq = (SELECT MIN(seq) FROM results)"
        )
    with pytest.raises(StoreError, match="broken"):
        RunStore(db).load("broken")
    shown = CliRunner().invoke(main, ["runs", "show", "broken", "--db", str(db)])
    assert shown.exit_code == 2
    assert "Traceback" not in shown.output
