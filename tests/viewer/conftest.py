from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from promptum.store import RunStore
from promptum.viewer import create_app
from tests.store.samples import GPT, LOCAL, SCRIPT, T0, make_run, mixed_outcomes
from tests.store.test_store import record
from tests.viewer.serving import served_app

PWN = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'


@dataclass(frozen=True)
class Viewer:
    url: str
    port: int
    store: RunStore


def _fill(store: RunStore) -> None:
    base = mixed_outcomes(cases=6, repeats=3)
    record(store, make_run("run-base", base, started=T0, suite="geo"))
    worse = {**base, ("capital-0", LOCAL): ["fail"] * 3, ("capital-3", LOCAL): ["fail"] * 3}
    record(store, make_run("run-next", worse, started=T0 + timedelta(hours=1), suite="geo"))
    hostile = {(SCRIPT, LOCAL): ["fail"], (PWN, GPT): ["pass"]}
    record(store, make_run("run-xss", hostile, started=T0 + timedelta(hours=2), suite=PWN))


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    path: Path = tmp_path_factory.mktemp("viewer") / "runs.sqlite"
    store = RunStore(path)
    _fill(store)
    with served_app(create_app(store)) as port:
        yield Viewer(f"http://127.0.0.1:{port}", port, store)
