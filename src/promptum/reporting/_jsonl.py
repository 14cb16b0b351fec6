"""JSONL: one `CaseResult` per line, written as results arrive so a crash keeps them."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from promptum.foundations.flushing import TurnFlush
from promptum.foundations.model_json import model_json
from promptum.foundations.redaction import environment_secrets, scrub_json
from promptum.reporting._numbers import rounded
from promptum.reporting._source import ReportSource, rendered
from promptum.values.run_result import CaseResult, RunResult


def _line(result: CaseResult) -> str:
    return model_json(rounded(result)) + "\n"


def write_jsonl(source: ReportSource, out: TextIO) -> None:
    """Write every result of the run, one JSON object per line, latency and cost rounded."""
    for result in source.results():
        out.write(_line(result))


def render_jsonl(run: RunResult) -> str:
    """Every result of the run, one JSON object per line, latency and cost rounded."""
    return rendered(write_jsonl, run)


class JsonlSink:
    """A `ResultSink` that appends one JSON line per result as it arrives."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._out: TurnFlush | None = None
        self._secrets: tuple[str, ...] = ()

    def start(self, run: RunResult) -> None:
        """Create (or empty) the file before the first result."""
        # Secret values from the environment are replaced in each line, as the store does.
        self._secrets = environment_secrets()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out = TurnFlush(self.path.open("w", encoding="utf-8"))

    def add(self, result: CaseResult) -> None:
        """Write one result, flushed with the others of this turn of the loop (`TurnFlush`)."""
        if self._out is None:
            raise RuntimeError("JsonlSink.add() called before start()")
        self._out.write(scrub_json(model_json(rounded(result)), self._secrets) + "\n")

    def finish(self, run: RunResult) -> None:
        """Close the file; every line is already written."""
        if self._out is not None:
            out, self._out = self._out, None
            out.file.close()
            out.raise_failure()
