"""The history packages export an explicit, sorted, complete `__all__`, and import lightly."""

from __future__ import annotations

import pytest

import promptum.compare
import promptum.store
import promptum.viewer
from tests.support.imports import imported_after


@pytest.mark.parametrize("module", [promptum.store, promptum.compare, promptum.viewer])
def test_all_is_sorted_and_complete(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    # The order ruff keeps (RUF022): CONSTANTS, then Classes, then functions.
    assert names == sorted(names, key=lambda n: (not n.isupper(), not n[0].isupper(), n))
    for name in names:
        assert hasattr(module, name), name


def test_the_cli_does_not_import_the_web_stack() -> None:
    assert imported_after("import promptum.cli", ["starlette", "uvicorn", "jinja2"])[0] == []
