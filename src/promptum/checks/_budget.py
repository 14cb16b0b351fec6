"""Budget check types on the call's figures: max_latency_ms and max_cost_usd."""

from __future__ import annotations

from promptum.checks._base import (
    CheckType,
    CompiledCheck,
    Condition,
    ValueKind,
    condition_check,
    failed_grade,
    passed_grade,
)
from promptum.values.completion import Completion
from promptum.values.grade import Grade


def _build_max_latency(limit: float, _case_insensitive: bool) -> CompiledCheck:
    shown = f"{limit:g}"
    description = f"Latency at most {shown} ms"
    passed = passed_grade("max_latency_ms", description)
    unmeasured = failed_grade(
        "max_latency_ms", description, "latency was not measured for this call"
    )

    def fail(completion: Completion) -> Grade:
        latency = completion.latency_ms
        if latency is None:
            return unmeasured
        # round() and the pre-formatted limit: float formatting is the slow part of a reason.
        reason = f"latency {round(latency)} ms > {shown} ms"
        return failed_grade("max_latency_ms", description, reason)

    test = "completion.latency_ms is not None and completion.latency_ms <= {limit}"
    return condition_check(Condition(test, {"limit": limit}, passed, fail))


def _build_max_cost(limit: float, _case_insensitive: bool) -> CompiledCheck:
    shown = f"${limit:g}"
    description = f"Cost at most {shown}"
    passed = passed_grade("max_cost_usd", description)
    unreported = failed_grade(
        "max_cost_usd",
        description,
        "cost was not reported for this model, so the budget cannot be checked "
        "(add a price for it to the suite's pricing)",
    )

    def fail(completion: Completion) -> Grade:
        cost = completion.cost_usd
        if cost is None:
            return unreported
        return failed_grade("max_cost_usd", description, f"cost ${cost:.6g} > {shown}")

    test = "completion.cost_usd is not None and completion.cost_usd <= {limit}"
    return condition_check(Condition(test, {"limit": limit}, passed, fail))


MAX_LATENCY_MS = CheckType(
    "max_latency_ms", "latency stays within the budget", ValueKind.NUMBER, _build_max_latency
)
MAX_COST_USD = CheckType(
    "max_cost_usd", "cost stays within the budget", ValueKind.NUMBER, _build_max_cost
)
