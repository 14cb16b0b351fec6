"""Budget check types on the call's figures: max_latency_ms and max_cost_usd."""

from __future__ import annotations

from promptum.checks._base import CheckType, CompiledCheck, ValueKind, condition_check
from promptum.values.completion import Completion


def _build_max_latency(limit: float, _case_insensitive: bool) -> CompiledCheck:
    shown = f"{limit:g}"

    def reason(completion: Completion) -> str:
        latency = completion.latency_ms
        if latency is None:
            return "latency was not measured for this call"
        # round() and the pre-formatted limit: float formatting is the slow part of a reason.
        return f"latency {round(latency)} ms > {shown} ms"

    test = "completion.latency_ms is not None and completion.latency_ms <= {limit}"
    description = f"Latency at most {shown} ms"
    return condition_check("max_latency_ms", description, test, {"limit": limit}, reason)


def _build_max_cost(limit: float, _case_insensitive: bool) -> CompiledCheck:
    shown = f"${limit:g}"

    def reason(completion: Completion) -> str:
        cost = completion.cost_usd
        if cost is None:
            return (
                "cost was not reported for this model, so the budget cannot be checked "
                "(add a price for it to the suite's pricing)"
            )
        return f"cost ${cost:.6g} > {shown}"

    test = "completion.cost_usd is not None and completion.cost_usd <= {limit}"
    return condition_check("max_cost_usd", f"Cost at most {shown}", test, {"limit": limit}, reason)


MAX_LATENCY_MS = CheckType(
    "max_latency_ms", "latency stays within the budget", ValueKind.NUMBER, _build_max_latency
)
MAX_COST_USD = CheckType(
    "max_cost_usd", "cost stays within the budget", ValueKind.NUMBER, _build_max_cost
)
