"""The git commit of the project a run was made in, recorded with the run."""

from __future__ import annotations

import subprocess
from pathlib import Path

_TIMEOUT_S = 5.0


class GitCommit:
    """Asks git for the checked-out commit without waiting: a run need not wait for git.

    git itself knows worktrees, packed refs and detached heads; parsing ``.git`` would not.
    """

    def __init__(self, folder: Path | None = None) -> None:
        try:
            self._process: subprocess.Popen[str] | None = subprocess.Popen(
                ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
                cwd=folder,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            self._process = None  # no git installed: the run matters more
        self._commit: str | None = None

    def result(self) -> str | None:
        """The commit, or None outside a repository (waits for git if it is still running)."""
        process, self._process = self._process, None
        if process is not None:
            try:
                output, _ = process.communicate(timeout=_TIMEOUT_S)
            except subprocess.TimeoutExpired:  # a hung filesystem: give up on the commit
                process.kill()
                process.communicate()
                return None
            if process.returncode == 0 and output.strip():
                self._commit = output.strip()
        return self._commit
