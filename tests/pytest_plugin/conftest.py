from __future__ import annotations

from collections.abc import Iterator

import pytest

# Imported here, before any in-process pytest run: pytester removes the modules a run
# imported when it ends, and a later run would mix fresh modules with stale ones (YAML).
import promptum.pytest_plugin._assert
import promptum.pytest_plugin._collect
import promptum.pytest_plugin._fixture
import promptum.pytest_plugin._record  # noqa: F401
from tests.pytest_plugin.plugin_project import VERDICT, Servers
from tests.support.fault_server import Reply, fault_server


def pytest_configure(config: pytest.Config) -> None:
    # `pytest_plugins = ["pytester"]` is refused in a conftest below the first level.
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[Servers]:
    """Two fault servers, reached from the pytest runs under test through the environment."""
    monkeypatch.delenv("PROMPTUM_DB", raising=False)
    with fault_server() as ok, fault_server() as down:
        ok.default = Reply.ok(VERDICT)
        down.default = Reply.error(401, "bad key")
        monkeypatch.setenv("PROMPTUM_FAULT_BASE_URL", ok.base_url)
        monkeypatch.setenv("PROMPTUM_DOWN_BASE_URL", down.base_url)
        yield Servers(ok, down)
