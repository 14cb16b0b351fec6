"""Write a test's files and run the promptum CLI in-process: the two helpers most tests need."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from promptum.cli import main


def write(path: str | Path, text: str) -> Path:
    """Write `text`, dedented, to `path` (a relative one from the working folder), making its
    folders; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def invoke(*args: str | Path, **kwargs: Any) -> Result:
    """Run `promptum ARGS` in-process; an exception other than an exit is raised, not kept in
    the result, unless `catch_exceptions=True` is passed (other keywords go to CliRunner)."""
    kwargs.setdefault("catch_exceptions", False)
    return CliRunner().invoke(main, [str(arg) for arg in args], **kwargs)
