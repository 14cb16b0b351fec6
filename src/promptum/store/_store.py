"""The run store: every run and result in one SQLite file, queried for history and comparison."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from promptum.errors import StoreError
from promptum.foundations.problems import first_problem
from promptum.store._connect import connect
from promptum.store._matrix import (
    MatrixFilter,
    MatrixPage,
    RunFigures,
    matrix_page,
    run_figures,
    run_tags,
)
from promptum.store._recorder import StoreRecorder
from promptum.store._reviews import (
    add_review,
    by_result,
    reviewed,
    run_reviews,
    skipped_reviews,
    stored_result,
)
from promptum.store._rows import newest_runs, results_from_json
from promptum.store._schema import migrate
from promptum.values.reviews import ResultKey, Review, ReviewedResult, SkippedReview
from promptum.values.run_result import CaseResult, RunResult

T = TypeVar("T")

DEFAULT_STORE = Path(".promptum") / "runs.sqlite"
_LATEST = re.compile(r"latest(?:~(.*))?", re.DOTALL)
_BACK = re.compile(r"[0-9]+")


def default_store_path() -> Path:
    """``$PROMPTUM_DB`` when set, else ``.promptum/runs.sqlite`` under the working directory."""
    configured = os.environ.get("PROMPTUM_DB")
    return Path(configured) if configured else DEFAULT_STORE


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One run as the list shows it: its facts and counts, without its results."""

    run_id: str
    suite: str
    models: list[str]
    started_at: datetime
    finished_at: datetime | None
    complete: bool
    total: int
    passed: int
    failed: int
    errors: int
    git_commit: str | None
    promptum_version: str | None
    git_dirty: bool | None = None
    """Whether tracked files had uncommitted changes; None outside git or when not recorded."""

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.passed / self.total if self.total else 0.0

    @property
    def revision(self) -> str:
        """The commit as people read it: ``3f2a9c1b7d+dirty``, or "" outside git."""
        if self.git_commit is None:
            return ""
        return self.git_commit[:10] + ("+dirty" if self.git_dirty else "")

    @property
    def state(self) -> str:
        """``complete``, ``interrupted``, or ``unfinished`` (still running, or crashed)."""
        if self.finished_at is None:
            return "unfinished"
        return "complete" if self.complete else "interrupted"


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One result of a case in one run, for the case's history across runs."""

    run_id: str
    suite: str
    started_at: datetime
    result: CaseResult


# Finished runs carry their counts; only unfinished ones (running, or crashed) are counted
# from their results.
_SUMMARY_SQL = """
SELECT r.run_id, r.suite, r.models, r.started_at, r.finished_at, r.complete,
       COALESCE(r.total, (SELECT COUNT(*) FROM results AS x WHERE x.run_id = r.run_id)),
       COALESCE(r.passed, (SELECT COUNT(*) FROM results AS x
                           WHERE x.run_id = r.run_id AND x.status = 'pass')),
       COALESCE(r.failed, (SELECT COUNT(*) FROM results AS x
                           WHERE x.run_id = r.run_id AND x.status = 'fail')),
       COALESCE(r.errors, (SELECT COUNT(*) FROM results AS x
                           WHERE x.run_id = r.run_id AND x.status = 'error')),
       r.git_commit, r.promptum_version, r.git_dirty
FROM ({runs}) AS r ORDER BY r.started_at DESC, r.run_id
"""


def _summary(row: tuple[Any, ...]) -> RunSummary:
    return RunSummary(
        run_id=row[0],
        suite=row[1],
        models=json.loads(row[2]),
        started_at=datetime.fromisoformat(row[3]),
        finished_at=None if row[4] is None else datetime.fromisoformat(row[4]),
        complete=bool(row[5]),
        total=row[6],
        passed=row[7],
        failed=row[8],
        errors=row[9],
        git_commit=row[10],
        promptum_version=row[11],
        git_dirty=None if row[12] is None else bool(row[12]),
    )


def _run(run_id: str, run: tuple[Any, ...], results: list[CaseResult]) -> RunResult:
    """The run of a `runs` row (as `RunStore.load` selects it), with its results."""
    return RunResult(
        run_id=run_id,
        suite=run[0],
        models=json.loads(run[1]),
        started_at=datetime.fromisoformat(run[2]),
        finished_at=None if run[3] is None else datetime.fromisoformat(run[3]),
        complete=bool(run[4]),
        config=json.loads(run[5]),
        planned_results=run[6],
        resumed=bool(run[7]),
        warnings=json.loads(run[8]),
        git_commit=run[9],
        git_dirty=None if run[10] is None else bool(run[10]),
        results=results,
    )


class RunStore:
    """A SQLite file of runs; create it once, open a connection per operation (thread-safe)."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        with self._connection() as connection:
            migrate(connection, self.path)

    def __repr__(self) -> str:
        return f"RunStore({str(self.path)!r})"

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        connection = connect(self.path)
        try:
            yield connection
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: the run store could not be read: {exc}") from None
        finally:
            connection.close()

    def recorder(self, *, commit_every_s: float = 0.0) -> StoreRecorder:
        """A ResultSink writing each result of a run to this store as it arrives.

        With `commit_every_s`, results arriving closer together than that are committed
        together (see `StoreRecorder`); by default each is committed on its own.
        """
        return StoreRecorder(self.path, commit_every_s=commit_every_s)

    def list_runs(
        self, *, limit: int | None = 50, suite: str | None = None, model: str | None = None
    ) -> list[RunSummary]:
        """The newest runs first, optionally only those whose suite or models match."""
        runs, params = newest_runs("*", "instr(lower(suite), lower(?)) > 0", suite, model)
        if limit is not None:
            runs += f" LIMIT {int(limit)}"
        with self._connection() as connection:
            rows = connection.execute(_SUMMARY_SQL.format(runs=runs), params).fetchall()
        return [self._read(row[0], _summary, row) for row in rows]

    def resolve(self, ref: str) -> str:
        """The full id of the run `ref` names: an id, a unique prefix, ``latest``, ``latest~N``."""
        if not ref.strip():
            raise StoreError(
                "an empty run reference: give a run id, a prefix of one, latest or latest~N"
            )
        latest = _LATEST.fullmatch(ref)
        if latest is not None:
            return self._latest(ref, latest.group(1))
        try:
            ref.encode()
        except UnicodeEncodeError:
            # Undecodable bytes on the command line (or a lone surrogate) name no run, and
            # SQLite could not even be asked.
            raise StoreError(
                f"{self.path}: no run {ref!r}; `promptum runs list` shows the runs it holds"
            ) from None
        with self._connection() as connection:
            matches = [
                row[0]
                for row in connection.execute(
                    "SELECT run_id FROM runs"
                    " WHERE run_id = ?1 OR substr(run_id, 1, length(?1)) = ?1"
                    " ORDER BY run_id = ?1 DESC, started_at DESC LIMIT 6",
                    (ref,),
                )
            ]
        if not matches:
            raise StoreError(
                f"{self.path}: no run {ref!r}; `promptum runs list` shows the runs it holds"
            )
        if matches[0] != ref and len(matches) > 1:
            shown = ", ".join(matches[:5])
            raise StoreError(f"run id {ref!r} is ambiguous ({shown}); give more of the id")
        return str(matches[0])

    def _latest(self, ref: str, back_text: str | None) -> str:
        """The run ``latest~N`` names, N counted back from the newest."""
        if back_text is not None and _BACK.fullmatch(back_text) is None:
            raise StoreError(
                f"run reference {ref!r}: N in latest~N counts runs back from the newest, "
                "a whole number 0 or more (latest~1 is the run before the latest)"
            )
        back = int(back_text or 0)
        with self._connection() as connection:
            count = connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            # Compared first: past SQLite's 64-bit integers OFFSET would overflow, not miss.
            row = None
            if back < count:
                row = connection.execute(
                    "SELECT run_id FROM runs ORDER BY started_at DESC, run_id LIMIT 1 OFFSET ?",
                    (back,),
                ).fetchone()
        if row is None:
            oldest = "it is empty" if count == 0 else f"latest~{count - 1} is the oldest"
            raise StoreError(
                f"{self.path}: there is no run {ref!r}: the store holds {count} run(s) "
                f"({oldest}); `promptum runs list` shows them"
            )
        return str(row[0])

    def summary(self, ref: str) -> RunSummary:
        """The list entry of one run."""
        run_id = self.resolve(ref)
        with self._connection() as connection:
            row = connection.execute(
                _SUMMARY_SQL.format(runs="SELECT * FROM runs WHERE run_id = ?"), (run_id,)
            ).fetchone()
        return self._read(run_id, _summary, row)

    def load(self, ref: str) -> RunResult:
        """The whole run `ref` names; results in plan order once it finished (arrival before)."""
        run_id = self.resolve(ref)
        with self._connection() as connection:
            run = connection.execute(
                "SELECT suite, models, started_at, finished_at, complete, config,"
                " planned_results, resumed, warnings, git_commit, git_dirty"
                " FROM runs WHERE run_id = ?",
                (run_id,),
            ).fetchone()
            data = [
                row[0]
                for row in connection.execute(
                    "SELECT data FROM results WHERE run_id = ?"
                    " ORDER BY COALESCE(position, -1), seq",
                    (run_id,),
                )
            ]
        results = self._results(f"run {run_id}", data, f"runs delete {run_id}")
        return self._read(run_id, _run, run_id, run, results)

    def _read(self, run_id: str, decode: Callable[..., T], *row: Any) -> T:
        """`decode(*row)`: run `run_id`'s record; StoreError naming the run if it is damaged."""
        try:
            return decode(*row)
        except ValueError as exc:  # a date, JSON or field no promptum wrote (a hand edit)
            reason = ": ".join(first_problem(exc)) if isinstance(exc, ValidationError) else exc
            raise StoreError(
                f"{self.path}: the record of run {run_id} cannot be read ({reason}); "
                f"`promptum runs delete {run_id}` removes it"
            ) from None

    def iter_results(self, ref: str, batch: int = 500) -> Iterator[CaseResult]:
        """The results of run `ref` in plan order, read `batch` at a time (bounded memory)."""
        run_id = self.resolve(ref)
        what, fix = f"run {run_id}", f"runs delete {run_id}"
        for texts in self._result_batches(run_id, batch):
            yield from self._results(what, texts, fix)

    def iter_result_json(self, ref: str, batch: int = 500) -> Iterator[str]:
        """The results of run `ref` as stored (JSON, secrets scrubbed), in plan order, unread.

        For results this promptum recorded: those of older versions may need the validation
        `iter_results` gives them.
        """
        for texts in self._result_batches(self.resolve(ref), batch):
            yield from texts

    def _result_batches(self, run_id: str, batch: int) -> Iterator[list[str]]:
        """The stored JSON of run `run_id`'s results in plan order, `batch` at a time."""
        with self._connection() as order, self._connection() as rows:
            # Sort the row ids only (SQLite's sorter, spilling to disk for a huge run), then
            # read each batch's JSON by id: sorting the ~3 KB documents themselves would
            # copy the whole run through the sorter once per report.
            cursor = order.execute(
                "SELECT seq FROM results WHERE run_id = ? ORDER BY COALESCE(position, -1), seq",
                (run_id,),
            )
            while ids := [row[0] for row in cursor.fetchmany(batch)]:
                marks = ",".join("?" * len(ids))
                found = dict(
                    rows.execute(f"SELECT seq, data FROM results WHERE seq IN ({marks})", ids)
                )
                yield [found[seq] for seq in ids if seq in found]

    def _results(self, what: str, rows: list[str], fix: str) -> list[CaseResult]:
        """Stored results validated; a clear error, not a traceback, when they do not load."""
        try:
            return results_from_json(rows)
        except ValidationError as exc:
            where, problem = first_problem(exc)
            raise StoreError(
                f"{self.path}: the stored results of {what} cannot be read "
                f"({exc.error_count()} problem(s), first at result {where}: {problem}); "
                f"`promptum {fix}` removes them"
            ) from None

    def delete(self, ref: str) -> str:
        """Delete the run `ref` names and its results; returns its full id."""
        run_id = self.resolve(ref)
        with self._connection() as connection:
            connection.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
        return run_id

    def add_review(self, review: Review) -> Review:
        """Store a person's review of a result of run `review.run_id` (its full id).

        A `StoreError` with the reason when the run, the result or the judge criterion it
        names does not exist; nothing is written then. Recorded grades never change. The
        environment's secrets (API keys...) in its texts are replaced: it returns what it stored.
        """
        with self._connection() as connection:
            return add_review(connection, self.path, review)

    def result(self, run_id: str, key: ResultKey) -> CaseResult | None:
        """The result of run `run_id` (its full id) that `key` names (see `result_key`), or None."""
        with self._connection() as connection:
            found = stored_result(connection, run_id, key)
        return None if found is None else self._results(run_id, [found[2]], "runs delete RUN")[0]

    def has_reviews(self) -> bool:
        """Whether any review is stored (cheap: the run summary asks on every run)."""
        with self._connection() as connection:
            return connection.execute("SELECT 1 FROM reviews LIMIT 1").fetchone() is not None

    def reviews(self, ref: str) -> list[Review]:
        """The reviews of run `ref` (an id, prefix or ``latest~N``), oldest first.

        A stored row that holds no review (see `skipped_reviews`) is left out, not fatal.
        """
        run_id = self.resolve(ref)
        with self._connection() as connection:
            return run_reviews(connection, run_id)

    def reviews_by_result(self, ref: str) -> dict[ResultKey, list[Review]]:
        """The reviews of run `ref` by the result they review: what reports are given."""
        return by_result(self.reviews(ref))

    def reviewed(
        self, refs: Sequence[str] = (), *, suite: str | None = None
    ) -> list[ReviewedResult]:
        """Every reviewed result of the runs `refs` name (all runs when none), with its reviews.

        `suite` keeps the results of that suite (the case's suite or the run's).
        """
        run_ids = [self.resolve(ref) for ref in refs]
        with self._connection() as connection:
            try:
                return reviewed(connection, run_ids, suite)
            except ValidationError as exc:  # a result another promptum wrote
                raise StoreError(
                    f"{self.path}: a reviewed result cannot be read ({exc.error_count()} "
                    f"problem(s), first: {exc.errors()[0]['msg']}); `promptum runs delete RUN` "
                    "removes its run"
                ) from None

    def skipped_reviews(self, refs: Sequence[str] = ()) -> list[SkippedReview]:
        """The review rows of the runs `refs` name (all runs when none) that hold no review.

        Rows an earlier promptum let in (or a hand edit wrote): a ``created_at`` that is not
        a date, a score out of 0-1... Reading reviews leaves them out; this says which, and why.
        """
        run_ids = [self.resolve(ref) for ref in refs]
        with self._connection() as connection:
            return skipped_reviews(connection, run_ids)

    def case_history(
        self, case_id: str, *, model: str | None = None, limit: int | None = 100
    ) -> list[HistoryEntry]:
        """Every stored result of one case (optionally on one model), newest run first.

        `case_id` is ``suite/case`` or the case's own id (which also finds runs stored
        before ids were namespaced by suite).
        """
        # CROSS JOIN keeps runs the outer loop: one seek of the run's key per run.
        sql = (
            "SELECT r.run_id, r.suite, r.started_at, x.data FROM runs AS r"
            " CROSS JOIN results AS x ON x.run_id = r.run_id"
            " WHERE (x.case_id = ?1 OR (x.suite <> '' AND x.suite || '/' || x.case_id = ?1))"
        )
        params: list[Any] = [case_id]
        if model:
            sql += " AND x.model = ?2"
            params.append(model)
        sql += " ORDER BY r.started_at DESC, x.suite, x.variant, x.model, x.repeat"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._connection() as connection:
            rows = connection.execute(sql, params).fetchall()
        results = self._results(f"case {case_id!r}", [row[3] for row in rows], "runs delete RUN")
        return [
            HistoryEntry(row[0], row[1], datetime.fromisoformat(row[2]), result)
            for row, result in zip(rows, results, strict=True)
        ]

    def matrix(
        self,
        ref: str,
        matrix_filter: MatrixFilter,
        *,
        offset: int = 0,
        limit: int = 50,
        other: str | None = None,
    ) -> MatrixPage:
        """One page of run `ref`'s cases matching the filter (see `promptum.store._matrix`)."""
        run_id = self.resolve(ref)
        other_id = self.resolve(other) if other else None
        with self._connection() as connection:
            return matrix_page(
                connection, run_id, matrix_filter, offset=offset, limit=limit, other=other_id
            )

    def facets(self, ref: str) -> tuple[list[str], list[str]]:
        """The suites and tags of run `ref`'s results, for filtering its matrix."""
        run_id = self.resolve(ref)
        with self._connection() as connection:
            return run_tags(connection, run_id)

    def figures(self, *, suite: str = "", model: str = "", runs: int = 50) -> list[RunFigures]:
        """Each model's figures in the newest `runs` runs, oldest first, for the trends."""
        with self._connection() as connection:
            return run_figures(connection, suite=suite, model=model, runs=runs)
