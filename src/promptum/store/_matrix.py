"""The store's read queries for the viewer's matrix and trends: one page of cases, run figures.

Every filter runs in SQLite over the run's rows, so a page of a 100,000-result run reads one
page of JSON documents, not the run: the cases matching are grouped and counted in SQL, and
only the page's results are parsed.
"""

from __future__ import annotations

import functools
import math
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

from promptum.store._rows import newest_runs, results_from_json
from promptum.values.run_result import CaseResult

T = TypeVar("T")
MAX_PAGE = 200
"""The most cases one page returns, however many are asked for."""
MAX_OFFSET = 2**62


@dataclass(frozen=True, slots=True)
class MatrixFilter:
    """Which cases of a run the matrix shows: a case is shown when one of its results matches."""

    failed: bool = False
    errored: bool = False
    flaky: bool = False
    """Repeats of the case on one column disagree."""
    must_pass: bool = False
    tag: str = ""
    suite: str = ""
    case_id: str = ""
    """One case only (its own id, with `suite`)."""
    search: str = ""
    """Text every answer (and error, and case id) is searched for, ignoring case."""
    changed_since: str | None = None
    """A run id: only results whose status differs there (or that it lacks)."""


@dataclass(frozen=True, slots=True)
class MatrixCase:
    """One row of the matrix: a case and every result of it, in the run (and the other run)."""

    suite: str
    case_id: str
    results: list[CaseResult]
    other: list[CaseResult]
    """The same case's results in the run compared with, when one is."""


@dataclass(frozen=True, slots=True)
class MatrixPage:
    """A page of the matrix: the cases matching, their total, and the run's columns."""

    total: int
    """Cases matching the filter in the whole run."""
    cases: list[MatrixCase]
    columns: list[tuple[str, str]]
    """Each (model, variant) of the run, in first-seen order ('' without a variant)."""
    other_columns: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class RunFigures:
    """One model's figures in one run, a point of the trends."""

    run_id: str
    suite: str
    started_at: datetime
    model: str
    total: int
    passed: int
    judge_mean: float | None
    cost_usd: float
    latency_p95: float | None
    """The 95th percentile of the latencies (nearest rank), None without any."""
    finished: bool = True
    """Whether the run had finished: its figures no longer change."""


def _where(run_id: str, matrix_filter: MatrixFilter) -> tuple[str, list[Any]]:
    """The conditions a result must meet, as SQL over `results AS r`, and their parameters."""
    where, params = ["r.run_id = ?"], [run_id]
    status = _status_condition(matrix_filter)
    if status is not None:
        where.append(status)
    if matrix_filter.must_pass:
        where.append("json_extract(r.data, '$.must_pass') = 1")
    for condition, value in _equal_conditions(matrix_filter):
        where.append(condition)
        params.append(value)
    if matrix_filter.search:
        # instr on lower(): LIKE would read % and _ in what the user typed as wildcards.
        # A conversation's earlier replies are in its turns (as JSON text: a word is found).
        where.append(
            "instr(lower(r.case_id || char(10) || COALESCE(json_extract(r.data,"
            " '$.completion.text'), '') || char(10) || COALESCE(json_extract(r.data,"
            " '$.completion.error'), '') || char(10) || COALESCE(json_extract(r.data,"
            " '$.turns'), '')), lower(?)) > 0"
        )
        params.append(matrix_filter.search)
    if matrix_filter.flaky:
        where.append(
            "(r.suite, r.case_id, r.variant, r.model) IN (SELECT suite, case_id, variant, model"
            " FROM results WHERE run_id = ? GROUP BY suite, case_id, variant, model"
            " HAVING COUNT(DISTINCT status) > 1)"
        )
        params.append(run_id)
    if matrix_filter.changed_since is not None:
        # The unique key seeks each result's twin in the other run.
        where.append(
            "NOT EXISTS (SELECT 1 FROM results AS o WHERE o.run_id = ? AND o.suite = r.suite"
            " AND o.case_id = r.case_id AND o.variant = r.variant AND o.model = r.model"
            " AND o.repeat = r.repeat AND o.status = r.status)"
        )
        params.append(matrix_filter.changed_since)
    return " AND ".join(where), params


def _status_condition(matrix_filter: MatrixFilter) -> str | None:
    """The SQL condition on a result's status the filter asks for, if any."""
    if matrix_filter.failed and matrix_filter.errored:
        return "r.status <> 'pass'"
    if matrix_filter.failed:
        return "r.status = 'fail'"
    if matrix_filter.errored:
        return "r.status = 'error'"
    return None


def _equal_conditions(matrix_filter: MatrixFilter) -> list[tuple[str, str]]:
    """The filter's tag, suite and case id, each as an SQL condition and its parameter."""
    found: list[tuple[str, str]] = []
    if matrix_filter.tag:
        found.append(
            (
                "EXISTS (SELECT 1 FROM json_each(r.data, '$.tags') WHERE value = ?)",
                matrix_filter.tag,
            )
        )
    if matrix_filter.suite:
        found.append(("r.suite = ?", matrix_filter.suite))
    if matrix_filter.case_id:
        found.append(("r.case_id = ?", matrix_filter.case_id))
    return found


def _columns(connection: sqlite3.Connection, run_id: str | None) -> list[tuple[str, str]]:
    """Each (model, variant) of the run in first-seen order, remembered once it finished."""
    if run_id is None:
        return []
    order = _plan_order(connection, run_id)
    return order.columns if order is not None else _read_columns(connection, run_id)


def _read_columns(connection: sqlite3.Connection, run_id: str) -> list[tuple[str, str]]:
    # Plan order (position), not arrival order (seq): concurrent calls finish in any order,
    # and the columns must not move between two runs of one suite.
    rows = connection.execute(
        "SELECT model, variant FROM results WHERE run_id = ?"
        " GROUP BY model, variant ORDER BY MIN(COALESCE(position, -1)), MIN(seq)",
        (run_id,),
    )
    return [(str(row[0]), str(row[1])) for row in rows]


_MEMO_LOCK = threading.Lock()


@dataclass
class _Memo:
    """Facts of finished runs remembered, the `keep` newest used."""

    facts: OrderedDict[tuple[str, ...], Any]
    keep: int


_ORDERS = _Memo(OrderedDict(), 8)
"""Case orders and facets (a few MB for a 100,000-result run's case order)."""
_FIGURES = _Memo(OrderedDict(), 2_000)
"""Each finished run's figures for the trends: a few hundred bytes per run and model."""


def _remembered(
    connection: sqlite3.Connection,
    run_id: str,
    what: str,
    read: Callable[[], T],
    memo: _Memo = _ORDERS,
) -> T | None:
    """`read()` once per finished run and `what`; None while the run is still recording.

    A finished run's results do not change (a resume finishes it again, which changes the
    key), and what is read here costs a pass over the whole run: a page then costs a page.
    """
    run = connection.execute(
        "SELECT finished_at, total FROM runs WHERE run_id = ?", (run_id,)
    ).fetchone()
    if run is None or run[0] is None:
        return None
    database = str(connection.execute("PRAGMA database_list").fetchone()[2])
    key = (database, run_id, str(run[0]), str(run[1]), what)
    with _MEMO_LOCK:
        if key in memo.facts:
            memo.facts.move_to_end(key)
            return cast("T", memo.facts[key])
    value = read()
    with _MEMO_LOCK:
        memo.facts[key] = value
        while len(memo.facts) > memo.keep:
            memo.facts.popitem(last=False)
    return value


@dataclass(frozen=True, slots=True)
class _Order:
    keys: list[tuple[str, str]]
    rank: dict[tuple[str, str], int]
    columns: list[tuple[str, str]]


def _read_order(connection: sqlite3.Connection, run_id: str) -> _Order:
    # Plan order needs each row's position, kept in the table beside the JSON: reading it
    # reads the whole run.
    rank: dict[tuple[str, str], int] = {}
    columns: dict[tuple[str, str], None] = {}
    for suite, case_id, model, variant in connection.execute(
        "SELECT suite, case_id, model, variant FROM results WHERE run_id = ?"
        " ORDER BY COALESCE(position, -1), seq",
        (run_id,),
    ):
        rank.setdefault((str(suite), str(case_id)), len(rank))
        columns.setdefault((str(model), str(variant)), None)
    return _Order(list(rank), rank, list(columns))


def _plan_order(connection: sqlite3.Connection, run_id: str) -> _Order | None:
    """The cases of a finished run in plan order, read once; None while it is running."""
    return _remembered(connection, run_id, "order", lambda: _read_order(connection, run_id))


def _page_keys(
    connection: sqlite3.Connection,
    run_id: str,
    matrix_filter: MatrixFilter,
    offset: int,
    limit: int,
) -> tuple[int, list[tuple[str, str]]]:
    """How many cases match, and the (suite, case) keys of the page asked for."""
    where, params = _where(run_id, matrix_filter)
    order = _plan_order(connection, run_id)
    if order is not None:
        if matrix_filter == MatrixFilter():
            keys = order.keys
        else:
            found = connection.execute(
                f"SELECT DISTINCT r.suite, r.case_id FROM results AS r WHERE {where}", params
            )
            last = len(order.rank)
            keys = sorted(
                ((str(s), str(c)) for s, c in found), key=lambda k: order.rank.get(k, last)
            )
        return len(keys), keys[offset : offset + limit]
    grouped = (
        f"SELECT r.suite, r.case_id, MIN(COALESCE(r.position, -1)) AS p, MIN(r.seq) AS s"
        f" FROM results AS r WHERE {where} GROUP BY r.suite, r.case_id"
    )
    total = connection.execute(f"SELECT COUNT(*) FROM ({grouped})", params).fetchone()[0]
    page = connection.execute(f"{grouped} ORDER BY p, s LIMIT ? OFFSET ?", [*params, limit, offset])
    return int(total), [(str(row[0]), str(row[1])) for row in page]


def _results_of(
    connection: sqlite3.Connection, run_id: str, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], list[CaseResult]]:
    """Every result of the given (suite, case) keys in one run, by key."""
    found: dict[tuple[str, str], list[CaseResult]] = {key: [] for key in keys}
    if not keys:
        return found
    marks = ",".join("(?, ?)" for _ in keys)
    # The keys outside: one seek of the unique index per case (an IN list would scan the run).
    rows = connection.execute(
        f"SELECT r.suite, r.case_id, r.data FROM (VALUES {marks}) AS k"
        " CROSS JOIN results AS r ON r.run_id = ? AND r.suite = k.column1"
        " AND r.case_id = k.column2 ORDER BY COALESCE(r.position, -1), r.seq",
        [*(part for key in keys for part in key), run_id],
    ).fetchall()
    results = results_from_json([row[2] for row in rows])
    for row, result in zip(rows, results, strict=True):
        found[row[0], row[1]].append(result)
    return found


def matrix_page(
    connection: sqlite3.Connection,
    run_id: str,
    matrix_filter: MatrixFilter,
    *,
    offset: int,
    limit: int,
    other: str | None,
) -> MatrixPage:
    """The cases of `run_id` matching `matrix_filter`, `limit` from `offset`, in plan order.

    `other` is a run whose results of the same cases stand beside them. The page's defaults
    are `RunStore.matrix`'s, the one caller.
    """
    limit = max(1, min(limit, MAX_PAGE))
    # SQLite takes 64-bit numbers only: an offset past every run is as good as any bigger one.
    offset = max(0, min(offset, MAX_OFFSET))
    total, keys = _page_keys(connection, run_id, matrix_filter, offset, limit)
    mine = _results_of(connection, run_id, keys)
    theirs = _results_of(connection, other, keys) if other is not None else {}
    cases = [
        MatrixCase(suite, case_id, mine[suite, case_id], theirs.get((suite, case_id), []))
        for suite, case_id in keys
    ]
    return MatrixPage(total, cases, _columns(connection, run_id), _columns(connection, other))


def run_tags(connection: sqlite3.Connection, run_id: str) -> tuple[list[str], list[str]]:
    """The suites and the tags of a run's results, sorted, for the matrix's filters."""
    remembered = _remembered(connection, run_id, "facets", lambda: _read_tags(connection, run_id))
    return remembered if remembered is not None else _read_tags(connection, run_id)


def _read_tags(connection: sqlite3.Connection, run_id: str) -> tuple[list[str], list[str]]:
    suites = [
        str(row[0])
        for row in connection.execute(
            "SELECT DISTINCT suite FROM results WHERE run_id = ? ORDER BY suite", (run_id,)
        )
    ]
    tags = [
        str(row[0])
        for row in connection.execute(
            "SELECT DISTINCT t.value FROM results AS r, json_each(r.data, '$.tags') AS t"
            " WHERE r.run_id = ? ORDER BY t.value",
            (run_id,),
        )
    ]
    return suites, tags


def run_figures(
    connection: sqlite3.Connection, *, suite: str = "", model: str = "", runs: int = 50
) -> list[RunFigures]:
    """Each model's figures in each of the newest `runs` runs (optionally of a suite/model)."""
    chosen, params = newest_runs(
        "run_id, suite, started_at, finished_at", "suite = ?", suite, model
    )
    listed = connection.execute(chosen + " LIMIT ?", [*params, runs]).fetchall()
    figures: list[RunFigures] = []
    for run_id, run_suite, started, finished in reversed(listed):
        read = functools.partial(
            _read_figures, connection, run_id, run_suite, started, model, finished is not None
        )
        # A finished run's figures do not change; reading them reads the whole run.
        known = _remembered(connection, run_id, f"figures {model}", read, _FIGURES)
        figures += known if known is not None else read()
    return figures


def p95_rank(count: int) -> int:
    """The 0-based index of the 95th percentile by nearest rank among `count` sorted values."""
    return max(0, math.ceil(0.95 * count) - 1)


def _read_figures(
    connection: sqlite3.Connection,
    run_id: str,
    suite: str,
    started: str,
    model: str,
    finished: bool,
) -> list[RunFigures]:
    """Each model's figures in one run (only `model`'s when given)."""
    models = connection.execute(
        "SELECT model, COUNT(*), SUM(status = 'pass'), AVG(judge_score), TOTAL(cost_usd),"
        " COUNT(latency_ms) FROM results WHERE run_id = ? AND (? = '' OR model = ?)"
        " GROUP BY model ORDER BY model",
        (run_id, model, model),
    ).fetchall()
    figures = []
    for name, total, passed, judge, cost, timed in models:
        p95 = connection.execute(
            "SELECT latency_ms FROM results WHERE run_id = ? AND model = ?"
            " AND latency_ms IS NOT NULL ORDER BY latency_ms LIMIT 1 OFFSET ?",
            (run_id, name, p95_rank(timed)),
        ).fetchone()
        figures.append(
            RunFigures(
                run_id=run_id,
                suite=suite,
                started_at=datetime.fromisoformat(started),
                model=name,
                total=total,
                passed=passed or 0,
                judge_mean=judge,
                cost_usd=cost,
                latency_p95=float(p95[0]) if p95 is not None else None,
                finished=finished,
            )
        )
    return figures
