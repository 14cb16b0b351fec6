"""Keep the garbage collector off what a run loaded before its first call."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptum.results import CaseResult, RunResult


class HeapFreezer:
    """A sink that, as the calls start, moves every object alive into the permanent generation.

    By then the process holds the model SDK's and pydantic's class graphs, hundreds of
    thousands of objects that live as long as the process: without this, every full
    collection during the run walks them again (measured: 0.3 s of a 2.7 s, 1,000-case run
    against an instant server). Only the CLI does this, and only for the calls: the
    collector sees everything again once they are over, so garbage that was alive at the
    start is not kept, and a program that ran the CLI in its own process gets its heap back.
    """

    def start(self, run: RunResult) -> None:
        """Freeze what is alive now (the suite, the clients, the modules)."""
        gc.freeze()

    def add(self, result: CaseResult) -> None:
        """Nothing to do per result."""

    def finish(self, run: RunResult) -> None:
        """Give the collector back everything frozen at the start."""
        gc.unfreeze()
