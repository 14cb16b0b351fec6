from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fault_server import FaultServer, fault_server


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A fresh folder as the working directory, its run store the default one inside it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PROMPTUM_DB", raising=False)
    return tmp_path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FaultServer]:
    """A fault server answering `fault/...` models; the working directory is a fresh folder."""
    monkeypatch.chdir(tmp_path)
    with fault_server() as running:
        monkeypatch.setenv("PROMPTUM_FAULT_BASE_URL", running.base_url)
        yield running
