"""The resume journal: every finished result of a run, one JSON line each, as it arrives.

The file is keyed by a fingerprint of the run's plan, so `--resume` finds the results of an
interrupted run of the same cases and runs only the rest. A complete run removes its journal.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from promptum.results import CaseResult, RunResult
from promptum.runner._case import TestCase


def _case_key(case: TestCase) -> dict[str, Any]:
    return {
        "id": case.id,
        "messages": [m.model_dump() for m in case.messages],
        "models": case.models,
        "params": asdict(case.params),
        "checks": [c.model_dump() for c in case.checks],
        "validator": None if case.validator is None else case.validator.describe(),
        "schema": case.response_schema,
        "expected": case.expected,
        "attack_target": case.attack_target,
        "expected_behavior": case.expected_behavior,
        "judge": None if case.judge is None else asdict(case.judge),
        "repeat": case.repeat,
    }


def plan_fingerprint(cases: Iterable[TestCase]) -> str:
    """A short hash of everything that decides a run's results."""
    digest = hashlib.sha256()
    for case in cases:
        digest.update(json.dumps(_case_key(case), sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16]


class Journal:
    """A ResultSink appending each result to ``<folder>/<fingerprint>.jsonl``."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.path = folder / f"{fingerprint}.jsonl"
        self._handle: IO[str] | None = None

    def load(self) -> tuple[str, datetime, list[CaseResult]] | None:
        """The run id, start time and finished results of an earlier run, if there is one."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return None
        if not lines:
            return None
        try:
            header = json.loads(lines[0])
            run_id, started_at = header["run_id"], datetime.fromisoformat(header["started_at"])
        except (ValueError, KeyError, TypeError):
            return None
        results = []
        for line in lines[1:]:
            try:
                results.append(CaseResult.model_validate_json(line))
            except ValidationError:
                continue  # a line cut short when the process was killed mid-write
        return run_id, started_at, results

    def start(self, run: RunResult) -> None:
        """Rewrite the journal for `run`: a header line, then the results it already has."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = self.path.open("w", encoding="utf-8")
        header = {"run_id": run.run_id, "started_at": run.started_at.isoformat()}
        self._handle.write(json.dumps(header) + "\n")
        self._handle.flush()

    def add(self, result: CaseResult) -> None:
        """Append one result and flush it, so a crash keeps it."""
        if self._handle is not None:
            self._handle.write(result.model_dump_json() + "\n")
            self._handle.flush()

    def finish(self, run: RunResult) -> None:
        """Close the journal; a complete run has nothing to resume, so its journal goes."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        if run.complete:
            self.path.unlink(missing_ok=True)
