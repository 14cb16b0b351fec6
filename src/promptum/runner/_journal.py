"""The resume journal: every finished result of a run, one JSON line each, as it arrives.

Each run writes its own file, ``<fingerprint>-<run id>.jsonl``, the fingerprint hashing the
run's plan: `--resume` picks the most recently written journal of the same plan (an
interrupted run; a complete run removes its own) and runs only the rest. Another run of the
same cases, finished in the meantime, leaves it alone.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from promptum.results import CaseResult, RunResult
from promptum.runner._case import TestCase

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def _case_key(case: TestCase) -> dict[str, Any]:
    return {
        "id": case.id,
        "suite": case.suite,
        "variant": case.variant,
        "messages": [m.model_dump() for m in case.messages],
        "models": case.models,
        "params": asdict(case.params),
        "checks": [c.model_dump() for c in case.checks],
        "validator": None if case.validator is None else case.validator.describe(),
        "schema": case.response_schema,
        "expected": case.expected,
        "attack_target": case.attack_target,
        "expected_behavior": case.expected_behavior,
        "context": case.context,
        "judge": None if case.judge is None else asdict(case.judge),
        "repeat": case.repeat,
    }


def case_fingerprint(case: TestCase) -> bytes:
    """What a run's fingerprint hashes of one case: everything that decides its results."""
    return json.dumps(_case_key(case), sort_keys=True, default=str).encode()


def plan_fingerprint(cases: Iterable[TestCase]) -> str:
    """A short hash of everything that decides a run's results."""
    digest = hashlib.sha256()
    for case in cases:
        digest.update(case_fingerprint(case))
    return digest.hexdigest()[:16]


def _read(path: Path) -> tuple[str, datetime, list[CaseResult]] | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines:
        return None
    try:
        header = json.loads(lines[0])
        run_id, started_at = header["run_id"], datetime.fromisoformat(header["started_at"])
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(run_id, str):
        return None
    results = []
    for line in lines[1:]:
        try:
            results.append(CaseResult.model_validate_json(line))
        except ValidationError:
            continue  # a line cut short when the process was killed mid-write
    return run_id, started_at, results


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class Journal:
    """A ResultSink appending each result to ``<folder>/<fingerprint>-<run id>.jsonl``."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder
        self.fingerprint = fingerprint
        self.path: Path | None = None
        """This run's journal, known once the run starts."""
        self._resumed_from: Path | None = None
        self._handle: IO[str] | None = None

    def candidates(self) -> list[Path]:
        """The journals of this plan, most recently written first."""
        # `<fingerprint>.jsonl` is the name older versions gave every run of the plan.
        paths = [*self.folder.glob(f"{self.fingerprint}-*.jsonl")]
        paths += [p for p in [self.folder / f"{self.fingerprint}.jsonl"] if p.is_file()]
        return sorted(paths, key=_modified, reverse=True)

    def load(self) -> tuple[str, datetime, list[CaseResult]] | None:
        """The run id, start time and finished results of the latest interrupted run, if any."""
        for path in self.candidates():
            earlier = _read(path)
            if earlier is not None:
                self._resumed_from = path
                return earlier
        return None

    def start(self, run: RunResult) -> None:
        """Rewrite the journal for `run`: a header line, then the results it already has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / f"{self.fingerprint}-{_UNSAFE.sub('_', run.run_id)}.jsonl"
        self._handle = self.path.open("w", encoding="utf-8")
        # Only what a resume needs: nothing from the suite or the config, so no secret.
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
        if self._resumed_from is not None and self._resumed_from != self.path:
            # An older version's journal that this run took over: its results are in ours.
            self._resumed_from.unlink(missing_ok=True)
        if run.complete and self.path is not None:
            self.path.unlink(missing_ok=True)
