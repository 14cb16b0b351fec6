"""Budget check types on the call's figures: max_latency_ms and max_cost_usd."""

from __future__ import annotations

from promptum.checks._base import CheckResult, CheckType, CompiledCheck, ValueKind
from promptum.completion import Completion


def _build_max_latency(limit: float, _case_insensitive: bool) -> CompiledCheck:
    shown = f"{limit:g}"
    description = f"Latency at most {shown} ms"
    passed = CheckResult("max_latency_ms", True, description)
    unmeasured = CheckResult(
        "max_latency_ms", False, description, "latency was not measured for this call"
    )

    def run(completion: Completion) -> CheckResult:
        latency = completion.latency_ms
        if latency is None:
            return unmeasured
        if latency <= limit:
            return passed
        # round() and the pre-formatted limit: float formatting is the slow part of a reason.
        return CheckResult(
            "max_latency_ms", False, description, f"latency {round(latency)} ms > {shown} ms"
        )

    return run


def _build_max_cost(limit: float, _case_insensitive: bool) -> CompiledCheck:
    description = f"Cost at most ${limit:g}"
    passed = CheckResult("max_cost_usd", True, description)
    unreported = CheckResult(
        "max_cost_usd",
        False,
        description,
        "cost was not reported for this model, so the budget cannot be checked "
        "(add a price for it to the suite's pricing)",
    )

    def run(completion: Completion) -> CheckResult:
        cost = completion.cost_usd
        if cost is None:
            return unreported
        if cost <= limit:
            return passed
        return CheckResult("max_cost_usd", False, description, f"cost ${cost:.6g} > ${limit:g}")

    return run


MAX_LATENCY_MS = CheckType(
    "max_latency_ms", "latency stays within the budget", ValueKind.NUMBER, _build_max_latency
)
MAX_COST_USD = CheckType(
    "max_cost_usd", "cost stays within the budget", ValueKind.NUMBER, _build_max_cost
)
