"""`promptum view` as a user starts it: a real process serving the store on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.store import RunStore
from tests.store.samples import make_run, mixed_outcomes
from tests.store.test_store import record
from tests.viewer.serving import first_page, free_port


@pytest.mark.slow
def test_view_serves_the_store_until_stopped(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    record(RunStore(db), make_run("served", mixed_outcomes()))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "promptum", "view", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert "served" in first_page(port)
    finally:
        server.terminate()
        out, err = server.communicate(timeout=15)
    assert f"on http://127.0.0.1:{port}/" in out
    assert "warning" not in err


def test_view_without_a_store_says_so(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["view", "--db", str(tmp_path / "none.sqlite")])
    assert done.exit_code == 2
    assert "no run store yet" in done.output


def test_a_missing_web_stack_gets_an_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    done = CliRunner().invoke(main, ["view", "--db", str(tmp_path / "runs.sqlite")])
    assert done.exit_code == 2
    assert "needs uvicorn" in done.output
    assert "pip install 'promptum[viewer]'" in done.output


def test_binding_beyond_loopback_warns(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    RunStore(db)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "promptum", "view", "--db", str(db), "--host", "0.0.0.0",
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        # The warning comes first, then this line; EOF instead if the process died.
        assert "promptum viewer of" in server.stdout.readline()
    finally:
        server.terminate()
        _, err = server.communicate(timeout=15)
    assert "anyone who can reach it can read every run" in err


def test_an_address_in_use_exits_1_with_a_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    RunStore(db)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = CliRunner().invoke(main, ["view", "--db", str(db), "--port", str(port)])
    assert done.exit_code == 1, done.output
    assert f"cannot serve on 127.0.0.1:{port}" in done.output
