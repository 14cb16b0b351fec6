"""The sink the runner attaches: each result is committed to the store the moment it arrives."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from promptum.redaction import (
    environment_secrets,
    scrub,
    scrub_json,
    scrub_values,
    without_secret_keys,
)
from promptum.results import CaseResult, RunResult
from promptum.store._connect import connect
from promptum.store._git import GitCommit
from promptum.store._rows import result_json, result_row, timestamp

_UPSERT_RUN = """
INSERT INTO runs (run_id, suite, models, started_at, finished_at, complete, config,
                  promptum_version, git_commit, git_dirty, total, passed, failed, errors)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL)
ON CONFLICT (run_id) DO UPDATE SET
    suite = excluded.suite, models = excluded.models, started_at = excluded.started_at,
    finished_at = excluded.finished_at, complete = excluded.complete, config = excluded.config,
    promptum_version = excluded.promptum_version, git_commit = excluded.git_commit,
    git_dirty = excluded.git_dirty,
    total = NULL, passed = NULL, failed = NULL, errors = NULL
"""
_COUNT = """
UPDATE runs SET
    total = (SELECT COUNT(*) FROM results WHERE run_id = ?1),
    passed = (SELECT COUNT(*) FROM results WHERE run_id = ?1 AND status = 'pass'),
    failed = (SELECT COUNT(*) FROM results WHERE run_id = ?1 AND status = 'fail'),
    errors = (SELECT COUNT(*) FROM results WHERE run_id = ?1 AND status = 'error')
WHERE run_id = ?1
"""
# A resumed run sends its earlier results again: the row is updated in place, keeping its
# place in the arrival order.
_UPSERT_RESULT = """
INSERT INTO results (run_id, suite, case_id, variant, model, repeat, status, latency_ms,
                     cost_usd, judge_score, data)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (run_id, suite, case_id, variant, model, repeat) DO UPDATE SET
    status = excluded.status, latency_ms = excluded.latency_ms, cost_usd = excluded.cost_usd,
    judge_score = excluded.judge_score, data = excluded.data
"""


# The run's results in plan order get fresh sequence numbers past every existing one, so a
# stored run loads (and exports) in suite order, not finishing order.
_REORDER = """
UPDATE results SET seq = ?
WHERE run_id = ? AND suite = ? AND case_id = ? AND variant = ? AND model = ? AND repeat = ?
"""


class StoreRecorder:
    """A ResultSink that commits the run, then every result, to the store as they come."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = None
        self._run_id = ""
        self._secrets: tuple[str, ...] = ()
        self._commit: str | None = None
        self._dirty: bool | None = None
        self._git: GitCommit | None = None

    def _write_run(self, run: RunResult) -> None:
        from promptum import __version__

        config = without_secret_keys(run.config)
        if self._commit is not None:
            config["git_commit"] = self._commit
            if self._dirty is not None:
                config["git_dirty"] = self._dirty
        version = str(config.get("promptum_version") or __version__)
        values = (
            run.run_id,
            scrub(run.suite, self._secrets),
            json.dumps(run.models, ensure_ascii=False),
            timestamp(run.started_at),
            None if run.finished_at is None else timestamp(run.finished_at),
            int(run.complete and run.finished_at is not None),
            json.dumps(scrub_values(config, self._secrets), ensure_ascii=False, default=str),
            version,
            self._commit,
            None if self._dirty is None else int(self._dirty),
        )
        assert self._connection is not None  # start() opened it
        self._connection.execute(_UPSERT_RUN, values)

    def start(self, run: RunResult) -> None:
        """Record the run's facts (config without secrets) before any result.

        The git commit, and whether the tree had changes, are asked for now and recorded
        when the run finishes, so the first result does not wait for git.
        """
        self._secrets = environment_secrets()
        self._commit = run.config.get("git_commit")
        dirty = run.config.get("git_dirty")
        self._dirty = dirty if self._commit is not None and isinstance(dirty, bool) else None
        self._git = GitCommit() if self._commit is None else None
        self._run_id = run.run_id
        self._connection = connect(self._path)
        self._write_run(run)

    def add(self, result: CaseResult) -> None:
        """Commit one result (one statement in autocommit mode: a crash keeps it)."""
        if self._connection is None:
            raise RuntimeError("StoreRecorder.add() called before start()")
        data = scrub_json(result_json(result), self._secrets)
        self._connection.execute(_UPSERT_RESULT, result_row(self._run_id, result, data))

    def _reorder(self, run: RunResult) -> None:
        assert self._connection is not None
        (last,) = self._connection.execute("SELECT COALESCE(MAX(seq), 0) FROM results").fetchone()
        rows = [
            (last + n, self._run_id, r.suite or "", r.case_id, r.variant or "", r.model, r.repeat)
            for n, r in enumerate(run.results, start=1)
        ]
        self._connection.executemany(_REORDER, rows)

    def finish(self, run: RunResult) -> None:
        """Record the end of the run (finished or interrupted) and close the connection."""
        if self._connection is None:
            return
        if self._git is not None:
            self._commit = self._git.result()
            # Changes are relative to a commit: without one (no repository) there is no claim.
            self._dirty = self._git.dirty() if self._commit is not None else None
            self._git = None
        try:
            self._connection.execute("BEGIN IMMEDIATE")
            self._write_run(run)
            self._connection.execute(_COUNT, (self._run_id,))
            self._reorder(run)
            self._connection.execute("COMMIT")
        finally:
            self._connection.close()
            self._connection = None
