from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder, holding the target `app.py:f` (it answers "ok") suites may name."""
    (tmp_path / "app.py").write_text("def f(query):\n    return 'ok'\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path
