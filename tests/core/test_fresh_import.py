"""`import_fresh`: a package imported on a thread of its own, and what it gives back."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptum.foundations.fresh_import import import_fresh

_PACKAGE = "fresh_import_probe"


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A package that records, as it is imported, the thread importing it."""
    package = tmp_path / _PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text(
        "import threading\nIMPORTED_ON = threading.current_thread()\n"
    )
    (package / "broken.py").write_text("raise RuntimeError('broken on import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == _PACKAGE]:
        del sys.modules[name]


@pytest.mark.usefixtures("probe")
def test_the_package_is_imported_on_another_thread_and_kept() -> None:
    module = import_fresh(_PACKAGE)
    assert module is sys.modules[_PACKAGE]
    assert module.IMPORTED_ON is not threading.current_thread()
    assert import_fresh(_PACKAGE) is module  # once imported, given back as it is


@pytest.mark.usefixtures("probe")
def test_an_import_error_reaches_the_caller() -> None:
    with pytest.raises(ModuleNotFoundError):
        import_fresh(f"{_PACKAGE}.missing")
    with pytest.raises(RuntimeError, match="broken on import"):
        import_fresh(f"{_PACKAGE}.broken")
    assert f"{_PACKAGE}.broken" not in sys.modules
