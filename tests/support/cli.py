"""Write a test's files and run the promptum CLI in-process (or, where a test needs it, in a
process of its own)."""

from __future__ import annotations

import subprocess
import sys
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


def run_promptum(
    *args: str | Path, cwd: str | Path | None = None, timeout: float = 180, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run `promptum ARGS` in a process of its own, its output kept as text; other keywords
    (`env`, `preexec_fn`) go to `subprocess.run`."""
    return subprocess.run(
        [sys.executable, "-m", "promptum", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )
