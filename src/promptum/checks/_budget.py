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
        said = str(round(latency))
        if said == shown:  # 5000.4 ms over 5000: not "5000 ms > 5000 ms"
            said = f"{latency:.1f}"
        return f"latency {said} ms > {shown} ms"

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
        said = f"${cost:.6g}"
        if said == shown:  # $1.000002 over $1: every digit, not "$1 > $1"
            said = f"${cost!r}"
        return f"cost {said} > {shown}"

    test = "completion.cost_usd is not None and completion.cost_usd <= {limit}"
    return condition_check("max_cost_usd", f"Cost at most {shown}", test, {"limit": limit}, reason)


MAX_LATENCY_MS = CheckType(
    "max_latency_ms", "latency stays within the budget", ValueKind.NUMBER, _build_max_latency
)
MAX_COST_USD = CheckType(
    "max_cost_usd", "cost stays within the budget", ValueKind.NUMBER, _build_max_cost
)
