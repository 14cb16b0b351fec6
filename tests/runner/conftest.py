from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from promptum.providers import ClientOptions, EndpointConfig
from tests.support.fault_server import FaultServer, fault_server


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


@pytest.fixture
def options(server: FaultServer, tmp_path: Path) -> ClientOptions:
    """Client options sending `fault/...` models to the fault server, without retries or cache."""
    return ClientOptions(
        max_retries=0,
        cache=False,
        cache_path=tmp_path / "cache.sqlite",
        endpoints={"fault": EndpointConfig(base_url=server.base_url, max_concurrency=8)},
    )
