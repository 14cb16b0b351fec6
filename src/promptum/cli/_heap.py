"""Keep the garbage collector off what a run loads before its first call."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptum.values.run_result import CaseResult, RunResult


class HeapFreezer:
    """A sink that, as the calls start, freezes every object alive and resumes the collector.

    By then the process holds the model SDK's and pydantic's class graphs and the suite:
    hundreds of thousands of objects that live as long as the run. Frozen (moved to the
    permanent generation), no collection during the calls walks them again. The collector
    sees them again once the calls are over, so garbage alive at the start is not kept,
    and a program that ran the CLI in its own process gets its heap back.
    """

    def __init__(self, *, resume_collector: bool) -> None:
        self._resume_collector = resume_collector

    def start(self, run: RunResult) -> None:
        """Freeze what is alive now (the modules, the suite, the clients); collect again."""
        gc.freeze()
        if self._resume_collector:
            gc.enable()

    def add(self, result: CaseResult) -> None:
        """Nothing to do per result."""

    def finish(self, run: RunResult) -> None:
        """Give the collector back everything frozen at the start."""
        gc.unfreeze()


@contextmanager
def collector_paused() -> Iterator[HeapFreezer]:
    """The collector off while a run loads, and on for its calls: yields the run's sink.

    Loading (imports, the suite, the clients) makes many long-lived objects and next to no
    cyclic garbage, so collections then only walk the same objects again. Measured on a
    1,000-case run against an instant server, in CPU time: 2.73 s before, 2.57 s frozen
    for the calls, 2.38 s also paused while loading (a bare SDK loop: 1.99 s). Only the
    CLI does this: the process is its own, whereas a library must not change its host's
    collector. The collector is as it was when the block ends, whatever happens.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield HeapFreezer(resume_collector=enabled)
    finally:
        if enabled:
            gc.enable()
