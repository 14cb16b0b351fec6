"""Each case's pass rate over its repeats, and the flaky cases: neither always pass nor fail."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from promptum.values.run_result import CaseResult, RunResult
from promptum.values.stats import CaseRate as CaseRate


def _namespaced(result: CaseResult) -> str:
    return result.key


def case_rates(
    results: Iterable[CaseResult],
    model: str,
    case_key: Callable[[CaseResult], str] = _namespaced,
) -> dict[str, CaseRate]:
    """Pass rates by case id (``suite/case``) of `model`'s results, in first-appearance order.

    `case_key` names a result's case another way: by its own id, to pair a run stored
    before ids were namespaced by suite with one after.
    """
    rates: dict[str, CaseRate] = {}
    for result in sorted(results, key=lambda r: r.repeat):
        if result.column != model:
            continue
        key = case_key(result)
        rate = rates.get(key)
        if rate is None:
            rate = rates[key] = CaseRate(key, result.column)
        rate.total += 1
        rate.passed += result.status == "pass"
        rate.errors += result.status == "error"
        completion = result.completion
        rate.responses.append(completion.text if completion.error is None else completion.error)
    return rates


def flaky_cases(run: RunResult) -> list[CaseRate]:
    """The cases of `run` that passed on some repeats of a model and failed on others."""
    return [
        rate
        for model, results in run.by_model().items()
        for rate in case_rates(results, model).values()
        if rate.flaky
    ]
