from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from promptum.store import RunStore
from tests.store.samples import T0, make_run, mixed_outcomes
from tests.store.test_store import record


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A run store holding two runs of mixed outcomes: run-old, and run-new an hour later."""
    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    record(store, make_run("run-old", mixed_outcomes(), started=T0))
    record(store, make_run("run-new", mixed_outcomes(), started=T0 + timedelta(hours=1)))
    return path
