"""Which modules a fresh interpreter has imported: how tests keep commands' start-up lean."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path


def imported_after(
    code: str, modules: Iterable[str], cwd: Path | None = None
) -> tuple[list[str], str]:
    """Which of `modules` a fresh interpreter has imported after running `code`; its output."""
    probe = f"{code}\nimport sys\nprint([m for m in {tuple(modules)!r} if m in sys.modules])"
    environment = dict(os.environ)
    environment.pop("PROMPTUM_DB", None)  # the run store of the test's folder, not the user's
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=cwd, env=environment, capture_output=True, text=True, check=True,
    )  # fmt: skip
    *output, last = done.stdout.splitlines()
    imported: list[str] = ast.literal_eval(last)
    return imported, "\n".join(output)


def imported_by_command(
    arguments: list[str], cwd: Path, modules: Iterable[str]
) -> tuple[list[str], str]:
    """Which of `modules` a fresh `promptum ARGUMENTS` has imported once done; its output."""
    code = (
        "from promptum.cli import main\n"
        f"try:\n    main({arguments!r})\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code"
    )
    return imported_after(code, modules, cwd)
