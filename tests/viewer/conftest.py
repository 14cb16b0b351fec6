from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from promptum.store import RunStore
from promptum.viewer import create_app
from tests.store.samples import GPT, LOCAL, SCRIPT, T0, make_run, mixed_outcomes
from tests.store.test_store import record

PWN = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'


@dataclass(frozen=True)
class Viewer:
    url: str
    port: int
    store: RunStore


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _fill(store: RunStore) -> None:
    base = mixed_outcomes(cases=6, repeats=3)
    record(store, make_run("run-base", base, started=T0, suite="geo"))
    worse = {**base, ("capital-0", LOCAL): ["fail"] * 3, ("capital-3", LOCAL): ["fail"] * 3}
    record(store, make_run("run-next", worse, started=T0 + timedelta(hours=1), suite="geo"))
    hostile = {(SCRIPT, LOCAL): ["fail"], (PWN, GPT): ["pass"]}
    record(store, make_run("run-xss", hostile, started=T0 + timedelta(hours=2), suite=PWN))


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    import uvicorn

    path: Path = tmp_path_factory.mktemp("viewer") / "runs.sqlite"
    store = RunStore(path)
    _fill(store)
    port = _free_port()
    config = uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.02)
    yield Viewer(f"http://127.0.0.1:{port}", port, store)
    server.should_exit = True
    thread.join(timeout=10)
