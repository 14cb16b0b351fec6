"""The problems loading a suite reports, one a line, for the tests that expect it to fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import load_suite


def problems(path: Path) -> list[str]:
    """Each problem `load_suite(path)` reports (the lines after its header)."""
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return str(caught.value).splitlines()[1:]
