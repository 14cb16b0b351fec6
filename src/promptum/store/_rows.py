"""Turning results and runs into rows of the store, rows back into results; runs chosen."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter

from promptum.values.run_result import CaseResult

_RESULTS = TypeAdapter(list[CaseResult])


def timestamp(moment: datetime) -> str:
    """A moment as ISO 8601 in UTC: the store's text order is then time order."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def result_row(run_id: str, result: CaseResult, data: str) -> tuple[Any, ...]:
    """The values of one `results` row."""
    completion = result.completion
    score = result.judge_score
    return (
        run_id,
        result.suite or "",
        result.case_id,
        result.variant or "",
        result.model,
        result.repeat,
        result.status,
        completion.latency_ms,
        completion.cost_usd,
        score,
        data,
    )


def results_from_json(rows: list[str]) -> list[CaseResult]:
    """Results from their stored JSON, validated in one pass (much faster than one by one)."""
    return _RESULTS.validate_json("[" + ",".join(rows) + "]")


def newest_runs(
    columns: str, suite_matches: str, suite: str | None, model: str | None
) -> tuple[str, list[str]]:
    """The query of `columns` of the runs, newest first, and its parameters.

    Only the runs of `suite` (`suite_matches`, a condition on ``suite`` with one ``?``) and
    of `model`, when given.
    """
    where, params = [], []
    if suite:
        where.append(suite_matches)
        params.append(suite)
    if model:
        where.append("EXISTS (SELECT 1 FROM json_each(runs.models) WHERE value = ?)")
        params.append(model)
    query = f"SELECT {columns} FROM runs"
    if where:
        query += " WHERE " + " AND ".join(where)
    return query + " ORDER BY started_at DESC, run_id", params
