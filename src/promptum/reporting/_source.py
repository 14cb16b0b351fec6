"""What a report is written from: a run's facts and figures, and its results read in order.

A run that kept its results is read from memory. A streamed run is read from wherever its
results went (the run store, a JSONL file), as often as a format needs, never all at once:
its figures come from the run's tally, so a report holds one result at a time.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, TextIO, TypeVar

from promptum.foundations.model_json import model_json
from promptum.foundations.redaction import scrub_json
from promptum.reporting._stored import StoredJson, holds_no_secret
from promptum.values.reviews import ReviewMap, ReviewsOf, result_key
from promptum.values.run_result import CaseResult, RunResult
from promptum.values.tally import RunTally

_Model = TypeVar("_Model", RunResult, CaseResult)

_SPOOL = 1 << 20
"""Characters of a report's part kept in memory before it moves to a temporary file."""

Results = Callable[[], Iterable[CaseResult]]
"""Reads a run's results: every call yields all of them again, in plan order."""


@dataclass(frozen=True, slots=True)
class ReportSource:
    """A run to report: its facts, whose `tally()` gives the figures, and its results."""

    run: RunResult
    """The run's facts; `run.tally()` counts exactly the results `results` yields."""
    results: Results
    reviews: ReviewMap = field(default_factory=dict)
    """People's reviews of the results (from the run store), shown beside the grades."""
    stored: StoredJson | None = None
    """The same results as this promptum stored them (JSON), when it just did: written
    without being validated again where a format can (`promptum.reporting._stored`)."""

    @classmethod
    def kept(cls, run: RunResult) -> ReportSource:
        """A run that holds its results."""
        counted = run.model_copy()  # shallow: the tally is counted once and the run not changed
        counted.streamed(run.tally())
        return cls(counted, lambda: counted.results)

    @classmethod
    def streamed(
        cls,
        run: RunResult,
        results: Results,
        secrets: tuple[str, ...],
        stored: StoredJson | None = None,
    ) -> ReportSource:
        """`run`'s facts with results read by `results` (or `stored`); `secrets` scrubbed."""
        shell = scrubbed(run.model_copy(update={"results": []}), secrets)
        if secrets and stored is not None and holds_no_secret(stored, secrets):
            secrets = ()  # nothing to replace: the results as written are those counted
        if secrets:
            results = _scrubbing(results, secrets)
            if stored is not None:
                stored = _scrubbing_json(stored, secrets)
        if secrets or not run.result_count:
            # The figures must be those of the results as written: count them again.
            tally = RunTally(shell.models)
            for position, result in enumerate(results()):
                tally.add(result, position)
        else:
            tally = run.tally()
        shell.streamed(tally)
        return cls(shell, results, stored=stored)

    def reviews_of(self, result: CaseResult) -> ReviewsOf:
        """The reviews of `result`, oldest first (none for most results)."""
        return self.reviews.get(result_key(result), ()) if self.reviews else ()


def scrubbed(model: _Model, secrets: tuple[str, ...]) -> _Model:
    """`model` with each secret replaced in its strings; the same object when none is there.

    The store does the same to what it records; a report written straight from a run (a key
    pasted into a prompt, echoed in a response or an error) must not hold one either. The
    run's strings are scrubbed, not the rendered text, so the HTML page's own script stays
    intact.
    """
    if not secrets:
        return model
    text = model_json(model)  # fast; usually there is nothing to replace and `model` is kept
    cleaned = scrub_json(text, secrets)
    return model if cleaned is text else type(model).model_validate_json(cleaned)


def _scrubbing(results: Results, secrets: tuple[str, ...]) -> Results:
    def read() -> Iterator[CaseResult]:
        for result in results():
            yield scrubbed(result, secrets)

    return read


def _scrubbing_json(stored: StoredJson, secrets: tuple[str, ...]) -> StoredJson:
    def read() -> Iterator[str]:
        for text in stored():
            yield scrub_json(text, secrets)

    return read


def spool() -> IO[str]:
    """A text file for part of a report written out of order: in memory until it grows."""
    return tempfile.SpooledTemporaryFile(_SPOOL, "w+", encoding="utf-8", newline="")


def rendered(write: Callable[[ReportSource, TextIO], None], run: RunResult) -> str:
    """The text `write` writes for `run`, which holds its results."""
    out = io.StringIO(newline="")
    write(ReportSource.kept(run), out)
    return out.getvalue()
