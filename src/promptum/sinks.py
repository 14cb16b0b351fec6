"""Where results go as they arrive: the progress display, a JSONL file, the run store."""

from __future__ import annotations

from typing import Protocol

from promptum.results import CaseResult, RunResult


class ResultSink(Protocol):
    """Receives a run's results one by one, as each case finishes."""

    def start(self, run: RunResult) -> None:
        """Called once before the first result; `run.results` is empty."""
        ...

    def add(self, result: CaseResult) -> None:
        """Called once per finished result, in completion order."""
        ...

    def finish(self, run: RunResult) -> None:
        """Called once at the end, also after an interruption (`run.complete` is then False)."""
        ...


class PlacedSink(ResultSink, Protocol):
    """A sink that also learns where each result stands in the run's plan.

    The runner calls `add_at` instead of `add` on a sink that has it: a sink that keeps
    results (the run store) can then give them back in plan order without sorting them
    in memory.
    """

    def add_at(self, result: CaseResult, position: int) -> None:
        """Called once per finished result with its place in the plan (0 first)."""
        ...
