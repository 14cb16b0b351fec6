"""The problems loading a suite reports, one a line, for the tests that expect it to fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import load_suite
from tests.support.cli import write


def problems(path: Path) -> list[str]:
    """Each problem `load_suite(path)` reports (the lines after its header, which counts them)."""
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    header, *lines = str(caught.value).splitlines()
    assert header.endswith("found:")
    return lines


def located_problem(folder: Path, text: str) -> str:
    """The one problem loading `text`, written as `folder/suite.yaml`, reports, after the path
    it must start with."""
    path = write(folder / "suite.yaml", text)
    found = problems(path)
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}:")
    return found[0].removeprefix(f"{path}:")


def suite_problem(text: str) -> str:
    """The one problem loading `text`, written as suite.yaml in the working folder, reports."""
    (message,) = problems(write("suite.yaml", text))
    return message
