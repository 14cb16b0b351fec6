"""The sink the runner attaches: each result is committed to the store as it arrives.

Results that arrive close together can be committed together (`commit_every_s`): a commit
costs more than the insert it commits, and a fast run brings hundreds of results a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from promptum.foundations.redaction import (
    environment_secrets,
    scrub,
    scrub_json,
    scrub_values,
    without_secret_keys,
)
from promptum.foundations.version import promptum_version
from promptum.sinks import result_json
from promptum.store._connect import connect
from promptum.store._git import GitCommit
from promptum.store._rows import result_row, timestamp
from promptum.values.run_result import CaseResult, RunResult

_UPSERT_RUN = """
INSERT INTO runs (run_id, suite, models, started_at, finished_at, complete, config,
                  promptum_version, git_commit, git_dirty, planned_results, resumed, warnings,
                  total, passed, failed, errors)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL)
ON CONFLICT (run_id) DO UPDATE SET
    suite = excluded.suite, models = excluded.models, started_at = excluded.started_at,
    finished_at = excluded.finished_at, complete = excluded.complete, config = excluded.config,
    promptum_version = excluded.promptum_version, git_commit = excluded.git_commit,
    git_dirty = excluded.git_dirty, planned_results = excluded.planned_results,
    resumed = excluded.resumed, warnings = excluded.warnings,
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
                     cost_usd, judge_score, data, position)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (run_id, suite, case_id, variant, model, repeat) DO UPDATE SET
    status = excluded.status, latency_ms = excluded.latency_ms, cost_usd = excluded.cost_usd,
    judge_score = excluded.judge_score, data = excluded.data, position = excluded.position
"""


# Results recorded without a plan position (`add` rather than `add_at`) get fresh sequence
# numbers past every existing one in plan order, so the run loads in suite order.
_REORDER = """
UPDATE results SET seq = ?
WHERE run_id = ? AND suite = ? AND case_id = ? AND variant = ? AND model = ? AND repeat = ?
"""

MAX_PENDING = 1000
"""The most results waiting for their commit (a row of JSON each): then they are committed."""


def _call_later(delay_s: float, callback: Callable[[], None]) -> asyncio.TimerHandle | None:
    """`callback` in `delay_s` on the running event loop; None outside one."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_later(delay_s, callback)


class StoreRecorder:
    """A ResultSink that commits the run, then every result, to the store as they come.

    With `commit_every_s`, a result is committed at once when the last commit is older than
    that, else together with the others arriving meanwhile, at most `commit_every_s` later
    (a timer on the running event loop; outside one, every result is committed at once).
    `flush` commits those waiting; `finish` commits them with the run's end.
    """

    def __init__(self, path: Path, *, commit_every_s: float = 0.0) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = None
        self._run_id = ""
        self._secrets: tuple[str, ...] = ()
        self._commit: str | None = None
        self._dirty: bool | None = None
        self._git: GitCommit | None = None
        self._unplaced = False
        """Whether a result came without a plan position: `finish` then renumbers them."""
        self._commit_every_s = commit_every_s
        self._pending: list[tuple[Any, ...]] = []
        """Rows of results not committed yet."""
        self._last_commit = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._failure: Exception | None = None
        """Why a commit made by the timer failed: raised with the next result, or at finish."""

    def _write_run(self, run: RunResult) -> None:
        config = without_secret_keys(run.config)
        version = str(config.get("promptum_version") or promptum_version())
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
            run.planned_results,
            int(run.resumed),
            json.dumps([scrub(w, self._secrets) for w in run.warnings], ensure_ascii=False),
        )
        assert self._connection is not None  # start() opened it
        self._connection.execute(_UPSERT_RUN, values)

    def start(self, run: RunResult) -> None:
        """Record the run's facts (config without secrets) before any result.

        The git commit, and whether the tree had changes, are asked for now and recorded
        when the run finishes, so the first result does not wait for git.
        """
        self._secrets = environment_secrets()
        self._commit = run.git_commit
        self._dirty = run.git_dirty if self._commit is not None else None
        self._git = GitCommit() if self._commit is None else None
        self._run_id = run.run_id
        self._connection = connect(self._path)
        self._write_run(run)

    def add(self, result: CaseResult) -> None:
        """Record one result: committed at once, or with the others of its moment."""
        self._insert(result, None)
        self._unplaced = True

    def add_at(self, result: CaseResult, position: int) -> None:
        """Record one result with its place in the run's plan, which loading orders by."""
        self._insert(result, position)

    def _insert(self, result: CaseResult, position: int | None) -> None:
        if self._connection is None:
            raise RuntimeError("StoreRecorder.add() called before start()")
        self._raise_failure()
        data = scrub_json(result_json(result), self._secrets)
        self._pending.append((*result_row(self._run_id, result, data), position))
        wait_s = self._last_commit + self._commit_every_s - time.monotonic()
        if wait_s <= 0 or len(self._pending) >= MAX_PENDING:
            self.flush()
        elif self._timer is None:
            self._timer = _call_later(wait_s, self._flush_on_time)
            if self._timer is None:  # no event loop to commit them later
                self.flush()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def _flush_on_time(self) -> None:
        self._timer = None
        try:
            self.flush()
        except Exception as exc:  # an event loop callback: the runner hears of it next
            self._failure = exc

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def flush(self) -> None:
        """Commit every result received so far."""
        self._cancel_timer()
        if not self._pending or self._connection is None:
            return
        if len(self._pending) == 1:  # one statement commits itself (autocommit mode)
            self._connection.execute(_UPSERT_RESULT, self._pending.pop())
        else:
            with self._transaction():
                self._write_pending()
        self._last_commit = time.monotonic()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction, rolled back if anything in it fails."""
        assert self._connection is not None
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            yield self._connection
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._connection.execute("ROLLBACK")
            raise
        self._connection.execute("COMMIT")

    def _write_pending(self) -> None:
        rows, self._pending = self._pending, []
        assert self._connection is not None
        self._connection.executemany(_UPSERT_RESULT, rows)

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
        self._raise_failure()
        self._cancel_timer()
        if self._git is not None:
            self._commit = self._git.result()
            # Changes are relative to a commit: without one (no repository) there is no claim.
            self._dirty = self._git.dirty() if self._commit is not None else None
            self._git = None
        # The run in memory learns what was recorded: reports written next state it too.
        run.git_commit, run.git_dirty = self._commit, self._dirty
        try:
            with self._transaction() as connection:
                self._write_pending()
                self._write_run(run)
                connection.execute(_COUNT, (self._run_id,))
                if self._unplaced:
                    self._reorder(run)
        finally:
            self._connection.close()
            self._connection = None
