"""Turning results and runs into rows of the store, and rows back into results."""

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
