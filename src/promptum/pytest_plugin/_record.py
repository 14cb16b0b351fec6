"""One pytest session's cases, recorded as one run in the run store as their results arrive."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from promptum.foundations.redaction import environment_secrets, scrub
from promptum.foundations.version import promptum_version
from promptum.store import RunStore, StoreRecorder, default_store_path
from promptum.values.run_result import CaseResult, RunResult


def store_path(home: Path) -> Path:
    """``$PROMPTUM_DB`` when set (as for `promptum`), else ``.promptum/runs.sqlite`` in `home`."""
    path = default_store_path()
    return path if os.environ.get("PROMPTUM_DB") else home / path


class RunRecorder:
    """Feeds the store's recorder from the teardown reports of the session's cases."""

    def __init__(self, home: Path) -> None:
        self._path = store_path(home)
        self._run: RunResult | None = None
        self._recorder: StoreRecorder | None = None
        self._suites: dict[str, None] = {}
        self._count = 0
        self._planned: int | None = None
        self._broken = False
        self.line = ""
        """What the terminal summary says about the run (empty before the first result)."""

    def _start(self) -> None:
        self._run = RunResult(
            run_id=uuid.uuid4().hex[:12],
            config={"runner": "pytest", "promptum_version": promptum_version()},
        )
        recorder = RunStore(self._path).recorder()
        recorder.start(self._run)
        self._recorder = recorder

    def add(self, report: Mapping[str, Any]) -> None:
        """Record the result one case's report carries; a store that fails stops recording."""
        if self._broken:
            return
        try:
            if self._recorder is None:
                self._start()
            result = CaseResult.model_validate(report["promptum_result"])
            assert self._run is not None
            assert self._recorder is not None
            self._suites.setdefault(str(report.get("promptum_suite", "")), None)
            if result.model not in self._run.models:
                self._run.models.append(result.model)
            planned = report.get("promptum_planned")
            if isinstance(planned, int):
                self._planned = planned
            self._recorder.add(result)
            self._count += 1
        except Exception as exc:  # pytest's own results matter more than the history
            self._fail(exc)
            return
        self.line = (
            f"promptum: recorded {self._count} result{'s' * (self._count != 1)} "
            f"as run {self._run.run_id} in {self._path}"
        )

    def _fail(self, exc: Exception) -> None:
        self._broken = True
        problem = scrub(f"{type(exc).__name__}: {exc}", environment_secrets())
        self.line = (
            f"promptum: warning: the run store {self._path} got no further results: {problem}"
        )
        recorder, self._recorder = self._recorder, None
        if recorder is not None and self._run is not None:
            with contextlib.suppress(Exception):  # already reported; closing is all that is left
                recorder.finish(self._run)

    def finish(self, *, stopped: bool) -> None:
        """Close the run: complete unless pytest stopped early or cases were not reported."""
        run, recorder = self._run, self._recorder
        if run is None or recorder is None:
            return
        self._recorder = None
        planned = self._count if self._planned is None else self._planned
        run.suite = ", ".join(name for name in self._suites if name)
        run.config["suites"] = list(self._suites)
        run.planned_results = planned
        run.finished_at = datetime.now(UTC)
        run.complete = not stopped and self._count >= planned
        try:
            recorder.finish(run)
        except Exception as exc:
            self._fail(exc)
