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
from promptum.cli._console import make_console, print_summary
from promptum.values.run_result import RunResult


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


def exit_code_and_output(*args: str) -> tuple[int, str]:
    """Run `promptum ARGS` in-process as CliRunner does (an exception is kept, exit code 1);
    return its exit code and output."""
    done = CliRunner().invoke(main, list(args))
    return done.exit_code, done.output


def usage_error(*args: str) -> str:
    """The output of `promptum ARGS`, run in-process, which must refuse its input (exit code 2)
    without a traceback."""
    code, output = exit_code_and_output(*args)
    assert code == 2, output
    assert "Traceback" not in output
    return output


def summary_text(run: RunResult) -> str:
    """The summary `promptum run` prints on the terminal for `run`, as text."""
    console = make_console()
    with console.capture() as captured:
        print_summary(console, run)
    return captured.get()


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


def run_pytest(*args: str, cwd: str | Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run `pytest ARGS` (its cache off) in a process of its own in `cwd`, within two minutes,
    its output kept as text; other keywords (`env`) go to `subprocess.run`."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        **kwargs,
    )
