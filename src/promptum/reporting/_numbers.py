"""How figures are rounded where machines read them (JSON, JSONL, CSV, ``--json``).

Latency is measured with a float clock and cost is a product of small prices, so the raw
values carry noise (``359.23456789``, ``0.0006299999999999999``) that no reader wants.
They are rounded here, at the boundary; the run store keeps the exact values. Scores are
written as they are: a grader's number is its own.
"""

from __future__ import annotations

from typing import Any

from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult

LATENCY_DIGITS = 1
"""Milliseconds to 0.1: finer than any network call varies by."""
COST_DIGITS = 9
"""Dollars to 1e-9: a thousandth of the price of one token of the cheapest models."""


def latency_ms(value: float | None) -> float | None:
    """A latency in milliseconds rounded to 0.1."""
    return None if value is None else round(value, LATENCY_DIGITS)


def cost_usd(value: float | None) -> float | None:
    """A cost in dollars rounded to 1e-9."""
    return None if value is None else round(value, COST_DIGITS)


def fixed(value: float | None, digits: int) -> str:
    """`value` rounded to `digits` decimals, without trailing zeros or an exponent ("" if None).

    ``1.2346e-05`` is what ``str`` gives for a cost; spreadsheets and people read
    ``0.000012346`` more easily.
    """
    if value is None:
        return ""
    text = f"{value:.{digits}f}"
    if "." not in text:  # no decimals asked for, or nan/inf
        return text
    text = text.rstrip("0")
    return text + "0" if text.endswith(".") else text


def _rounded_completion(completion: Completion) -> Completion:
    """`completion` with its latency and cost rounded; the same object when nothing changes."""
    latency, cost = latency_ms(completion.latency_ms), cost_usd(completion.cost_usd)
    if latency == completion.latency_ms and cost == completion.cost_usd:
        return completion
    return completion.model_copy(update={"latency_ms": latency, "cost_usd": cost})


def rounded(result: CaseResult) -> CaseResult:
    """`result` (each turn too) with latency and cost rounded; the same object when unchanged."""
    changed: dict[str, Any] = {}
    completion = _rounded_completion(result.completion)
    if completion is not result.completion:
        changed["completion"] = completion
    if result.turns:
        turns = [
            turn.model_copy(update={"completion": _rounded_completion(turn.completion)})
            for turn in result.turns
        ]
        changed["turns"] = turns
    return result.model_copy(update=changed) if changed else result
