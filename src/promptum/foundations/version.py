"""promptum's installed version, looked up once, on first use."""

from __future__ import annotations

from functools import cache


@cache
def promptum_version() -> str:
    """The installed distribution's version (``0.0.0`` in a source tree never installed)."""
    # importlib.metadata is imported here: it would double the time `promptum --help` takes.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("promptum")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"
