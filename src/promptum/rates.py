"""Each case's pass rate over its repeats, and the flaky cases: neither always pass nor fail."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from promptum.results import CaseResult, RunResult


@dataclass(slots=True)
class CaseRate:
    """How often one case passed on one model (``model · variant`` with variants) in a run."""

    case_id: str
    """The case's id within the run: ``suite/case`` for a suite's case."""
    model: str
    passed: int = 0
    total: int = 0
    errors: int = 0
    responses: list[str] = field(default_factory=list)
    """Each repeat's response text (or error), in repeat order."""

    @property
    def rate(self) -> float:
        """Passed repeats as a fraction of all repeats."""
        return self.passed / self.total if self.total else 0.0

    @property
    def flaky(self) -> bool:
        """Whether the case neither always passed nor always failed."""
        return 0 < self.passed < self.total

    @property
    def outcome(self) -> str:
        """``pass``, ``fail``, ``error`` (every repeat an error) or ``flaky 2/3``."""
        if self.flaky:
            return f"flaky {self.passed}/{self.total}"
        if self.passed:
            return "pass"
        return "error" if self.errors == self.total else "fail"


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
