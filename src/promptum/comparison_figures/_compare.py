"""Comparing two runs, or two models within one run, on the cases they share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from promptum.comparison_figures._asr import AsrChange, asr_changes
from promptum.comparison_figures._stats import (
    ALPHA,
    Interval,
    paired_interval,
    sign_test,
    wilson_interval,
)
from promptum.errors import ConfigError
from promptum.rates import CaseRate, case_rates
from promptum.values.run_result import CaseResult, ModelStats, RunResult

ChangeKind = Literal["regressed", "fixed", "changed"]
Verdict = Literal["regression", "improvement", "no significant change"]


@dataclass(frozen=True, slots=True)
class CaseChange:
    """A shared case whose pass rate fell (regressed), rose (fixed), or whose response changed."""

    kind: ChangeKind
    before: CaseRate
    after: CaseRate

    @property
    def case_id(self) -> str:
        """The case's id."""
        return self.before.case_id


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: a model's results in a run."""

    run_id: str
    model: str
    stats: ModelStats
    interval: Interval
    """95% interval of the pass rate over all of this side's results."""
    flaky: list[CaseRate]

    @property
    def label(self) -> str:
        """``model @ run`` for a person."""
        return f"{self.model} @ {self.run_id}"


@dataclass(frozen=True, slots=True)
class ModelComparison:
    """Side A against side B: pass-rate delta with its interval, significance, changed cases."""

    a: Side
    b: Side
    shared: int
    """Cases both sides ran: what the paired delta and test are computed on."""
    delta: float
    """Mean change of the per-case pass rate on the shared cases (B minus A)."""
    interval: Interval
    p_value: float
    rose: int
    fell: int
    changes: list[CaseChange]
    only_a: list[str]
    only_b: list[str]
    must_pass: frozenset[str] = frozenset()
    """Cases B marks must-pass: B is the suite as it stands now, A may predate the mark."""
    asr: list[AsrChange] = field(default_factory=list)
    """Attack success rates of the red-team cases, all then by goal; empty without them."""

    @property
    def name(self) -> str:
        """The model, or ``model A → model B`` when two models are compared."""
        return self.a.model if self.a.model == self.b.model else f"{self.a.model} → {self.b.model}"

    @property
    def significant(self) -> bool:
        """Whether the paired test calls the difference real (p below 0.05)."""
        return self.p_value < ALPHA

    @property
    def verdict(self) -> Verdict:
        """A significant fall is a regression, a significant rise an improvement.

        With repeats the mean change and the sign test can point opposite ways (many cases
        rising a little, a few falling a lot): that is no verdict either way.
        """
        if not self.significant or self.delta == 0 or (self.delta < 0) != (self.fell > self.rose):
            return "no significant change"
        return "regression" if self.delta < 0 else "improvement"

    def of_kind(self, kind: ChangeKind) -> list[CaseChange]:
        """The changed cases of one kind, in case order."""
        return [change for change in self.changes if change.kind == kind]

    @property
    def must_pass_regressions(self) -> list[CaseChange]:
        """The regressed cases that B marks must-pass: each one fails the gate."""
        return [c for c in self.of_kind("regressed") if c.case_id in self.must_pass]

    @property
    def judge_delta(self) -> float | None:
        """Change of the mean judge score, when both sides were judged."""
        a, b = self.a.stats.judge_mean, self.b.stats.judge_mean
        return None if a is None or b is None else b - a

    @property
    def latency_delta_ms(self) -> float | None:
        """Change of the median latency, when both sides have latencies."""
        a, b = self.a.stats.latency_p50_ms, self.b.stats.latency_p50_ms
        return None if a is None or b is None else b - a

    @property
    def cost_delta_usd(self) -> float:
        """Change of the spend (cached responses at their original price included)."""
        a, b = self.a.stats, self.b.stats
        return (b.cost_usd + b.cached_cost_usd) - (a.cost_usd + a.cached_cost_usd)


@dataclass(frozen=True, slots=True)
class Comparison:
    """Every model pair compared between run A and run B."""

    run_a: RunResult
    run_b: RunResult
    models: list[ModelComparison]
    unpaired_a: list[ModelStats] = field(default_factory=list)
    """Columns (a model, or ``model · variant``) of A that B has no results of: not compared."""
    unpaired_b: list[ModelStats] = field(default_factory=list)
    """Columns of B that A has no results of: not compared."""

    @property
    def unpaired(self) -> list[str]:
        """Each column left out of the comparison, and why, for a person to read."""
        return [
            f"{stats.column} ran only in {side} ({other} has no results of it): not compared"
            for side, other, columns in (("A", "B", self.unpaired_a), ("B", "A", self.unpaired_b))
            for stats in columns
        ]

    @property
    def regressions(self) -> list[ModelComparison]:
        """The pairs whose pass rate fell significantly (one of the gate's three rules)."""
        return [m for m in self.models if m.verdict == "regression"]


def _side(run_id: str, stats: ModelStats, rates: dict[str, CaseRate]) -> Side:
    return Side(
        run_id=run_id,
        model=stats.column,
        stats=stats,
        interval=wilson_interval(stats.passed, stats.total),
        flaky=[rate for rate in rates.values() if rate.flaky],
    )


def _change(before: CaseRate, after: CaseRate) -> CaseChange | None:
    if after.rate < before.rate:
        return CaseChange("regressed", before, after)
    if after.rate > before.rate:
        return CaseChange("fixed", before, after)
    # The same pass rate: another answer, or an error where it failed (its text is the error).
    # Sets: the same answer given on more (or fewer) repeats is not a changed response.
    if set(before.responses) != set(after.responses):
        return CaseChange("changed", before, after)
    return None


_NAMED = 5
"""Case ids named in an error before the rest are only counted."""


def _named(case_ids: list[str]) -> str:
    if not case_ids:
        return "no cases"
    shown = ", ".join(case_ids[:_NAMED])
    more = f" and {len(case_ids) - _NAMED} more" if len(case_ids) > _NAMED else ""
    return f"case{'s' if len(case_ids) > 1 else ''} {shown}{more}"


def _no_shared_cases(
    run_a: RunResult, model_a: str, run_b: RunResult, model_b: str, a: list[str], b: list[str]
) -> ConfigError:
    # A delta "on 0 shared" reads like a verdict; with nothing paired there is none to give.
    if run_a.run_id == run_b.run_id and model_a != model_b:
        return ConfigError(
            f"models {model_a} and {model_b} of run {run_a.run_id} share no cases: "
            f"{model_a} has {_named(a)}; {model_b} has {_named(b)}; "
            "compare two models that ran the same cases"
        )
    return ConfigError(
        f"the runs share no cases: run A ({run_a.run_id}, {model_a}) has {_named(a)}; "
        f"run B ({run_b.run_id}, {model_b}) has {_named(b)}; "
        "compare two runs of the same suite (case ids must match)"
    )


def _own_id(result: CaseResult) -> str:
    return result.case_id


def _suite_id(result: CaseResult) -> str:
    return result.key


def _case_key(run_a: RunResult, run_b: RunResult) -> Callable[[CaseResult], str]:
    """How the runs' cases pair up: by ``suite/case``, or by own id with a run from before.

    Results stored before ids were namespaced by suite have no suite.
    """
    namespaced = [any(r.suite for r in run.results) for run in (run_a, run_b)]
    return _suite_id if all(namespaced) or not any(namespaced) else _own_id


def compare_models(
    run_a: RunResult,
    model_a: str,
    run_b: RunResult,
    model_b: str,
    stats: tuple[dict[str, ModelStats], dict[str, ModelStats]] | None = None,
) -> ModelComparison:
    """Side ``model_a`` of `run_a` against side ``model_b`` of `run_b`.

    `stats` is both runs' `RunResult.stats()` when the caller already has them. Raises
    ConfigError when the two sides share no case: there is nothing to compare.
    """
    stats_a, stats_b = stats if stats is not None else (run_a.stats(), run_b.stats())
    case_key = _case_key(run_a, run_b)
    rates_a = case_rates(run_a.results, model_a, case_key)
    rates_b = case_rates(run_b.results, model_b, case_key)
    shared = [case_id for case_id in rates_a if case_id in rates_b]
    if not shared:
        raise _no_shared_cases(run_a, model_a, run_b, model_b, list(rates_a), list(rates_b))
    differences = [rates_b[c].rate - rates_a[c].rate for c in shared]
    rose = sum(d > 0 for d in differences)
    fell = sum(d < 0 for d in differences)
    return ModelComparison(
        a=_side(run_a.run_id, stats_a[model_a], rates_a),
        b=_side(run_b.run_id, stats_b[model_b], rates_b),
        shared=len(shared),
        delta=sum(differences) / len(shared),
        interval=paired_interval(differences),
        p_value=sign_test(rose, fell),
        rose=rose,
        fell=fell,
        changes=_changes(rates_a, rates_b, shared),
        only_a=_only(rates_a, rates_b),
        only_b=_only(rates_b, rates_a),
        must_pass=_must_pass(run_b, model_b, case_key),
        asr=asr_changes(run_a.results, model_a, run_b.results, model_b, case_key),
    )


def _changes(
    rates_a: dict[str, CaseRate], rates_b: dict[str, CaseRate], shared: list[str]
) -> list[CaseChange]:
    """How each shared case's pass rate moved from A to B, where it moved."""
    return [change for c in shared if (change := _change(rates_a[c], rates_b[c])) is not None]


def _only(rates: dict[str, CaseRate], other: dict[str, CaseRate]) -> list[str]:
    """The cases of one side that the other side does not have, in order."""
    return [case_id for case_id in rates if case_id not in other]


def _must_pass(run: RunResult, model: str, case_key: Callable[[CaseResult], str]) -> frozenset[str]:
    """The cases marked must-pass among the results of `model` in `run`."""
    return frozenset(case_key(r) for r in run.results if r.column == model and r.must_pass)


def _pairs(
    run_a: RunResult, models_a: list[str], run_b: RunResult, models_b: list[str]
) -> list[tuple[str, str]]:
    shared = [model for model in models_a if model in models_b]
    if shared:
        return [(model, model) for model in shared]
    if len(models_a) == 1 and len(models_b) == 1:
        return [(models_a[0], models_b[0])]
    raise ConfigError(
        f"runs {run_a.run_id} and {run_b.run_id} share no model "
        f"({', '.join(models_a) or 'none'} against {', '.join(models_b) or 'none'}); "
        "name the two to compare with --model-a and --model-b"
    )


def compare_runs(
    run_a: RunResult, run_b: RunResult, pairs: Sequence[tuple[str, str]] | None = None
) -> Comparison:
    """Compare B against A for each (model in A, model in B) pair; by default every shared model."""
    stats = run_a.stats(), run_b.stats()
    default = pairs is None
    pairs = (
        list(pairs) if pairs is not None else _pairs(run_a, list(stats[0]), run_b, list(stats[1]))
    )
    _check_paired(run_a, stats[0], [a for a, _ in pairs])
    _check_paired(run_b, stats[1], [b for _, b in pairs])
    compared = [compare_models(run_a, a, run_b, b, stats) for a, b in pairs]
    if not default:  # the caller chose the pairs: the rest were left out on purpose
        return Comparison(run_a, run_b, compared)
    # A model or prompt variant that only one run has would otherwise vanish without a word.
    return Comparison(
        run_a,
        run_b,
        compared,
        unpaired_a=_unpaired(stats[0], {a for a, _ in pairs}),
        unpaired_b=_unpaired(stats[1], {b for _, b in pairs}),
    )


def _check_paired(run: RunResult, run_stats: dict[str, ModelStats], models: list[str]) -> None:
    """Raise ConfigError naming the first of `models` that `run` has no results of."""
    for model in models:
        if model not in run_stats:
            known = ", ".join(run_stats) or "none"
            raise ConfigError(
                f"run {run.run_id} has no results of model {model!r} (it has {known})"
            )


def _unpaired(stats: dict[str, ModelStats], paired: set[str]) -> list[ModelStats]:
    """The columns with results that no pair compares."""
    return [column for name, column in stats.items() if name not in paired and column.total]
