"""The git commit of the project a run was made in, and whether its tree had changes."""

from __future__ import annotations

import subprocess
from pathlib import Path

_TIMEOUT_S = 5.0


def _start(arguments: list[str], folder: Path | None) -> subprocess.Popen[str] | None:
    try:
        return subprocess.Popen(
            ["git", *arguments],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError:
        return None  # no git installed: the run matters more


def _output(process: subprocess.Popen[str] | None) -> str | None:
    """What git printed, or None when it failed or hung (waits for it if still running)."""
    if process is None:
        return None
    try:
        output, _ = process.communicate(timeout=_TIMEOUT_S)
    except subprocess.TimeoutExpired:  # a hung filesystem: give up on this fact
        process.kill()
        process.communicate()
        return None
    return output if process.returncode == 0 else None


class GitCommit:
    """Asks git for the checked-out commit and the tree's state without waiting for it.

    git itself knows worktrees, packed refs and detached heads; parsing ``.git`` would not.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self._process = _start(["rev-parse", "--verify", "--quiet", "HEAD"], folder)
        # Changes to tracked files, staged or not, as `git describe --dirty` counts them.
        # Untracked files are not: `.promptum/` itself would be one until it is ignored.
        # --no-optional-locks: status must not take the index lock a user's git may need.
        self._status = _start(
            ["--no-optional-locks", "status", "--porcelain", "--untracked-files=no"], folder
        )
        self._commit: str | None = None
        self._dirty: bool | None = None

    def result(self) -> str | None:
        """The commit, or None outside a repository (waits for git if it is still running)."""
        process, self._process = self._process, None
        if process is not None:
            output = _output(process)
            if output and output.strip():
                self._commit = output.strip()
        return self._commit

    def dirty(self) -> bool | None:
        """Whether tracked files differ from the commit; None outside a repository or unknown."""
        process, self._status = self._status, None
        if process is not None:
            output = _output(process)
            if output is not None:
                self._dirty = bool(output.strip())
        return self._dirty
