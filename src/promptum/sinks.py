"""Where results go as they arrive: the progress display, a JSONL file, the run store."""

from __future__ import annotations

from typing import Protocol

from promptum.foundations.model_json import model_json
from promptum.values.run_result import CaseResult, RunResult


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


_last_encoded: tuple[CaseResult, str] | None = None
"""The result `result_json` encoded last, and its JSON."""


def result_json(result: CaseResult) -> str:
    """The result as JSON, encoded once for every sink that writes it.

    The runner hands each sink the same result object in turn (the secrets already
    replaced), and sinks never change it: the run store, the resume journal and the
    runner's own scrubbing then share one encoding, the most expensive step per result.
    """
    global _last_encoded
    last = _last_encoded
    if last is not None and last[0] is result:
        return last[1]
    text = model_json(result)
    _last_encoded = (result, text)
    return text
