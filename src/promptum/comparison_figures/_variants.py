"""Prompt variants within a run: which one leads on each model, and whether the lead is real."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from promptum.comparison_figures._compare import ModelComparison, compare_models
from promptum.errors import ConfigError
from promptum.values.run_result import CaseResult, RunResult


@dataclass(frozen=True, slots=True)
class VariantLead:
    """The best variant of one model against the runner-up, with the paired comparison."""

    model: str
    best: str
    runner_up: str
    comparison: ModelComparison
    """Runner-up (A) against best (B): the same paired statistics as comparing two models."""
    suite: str | None = None
    """The suite whose variants these are, named when several suites of the run have some."""

    @property
    def where(self) -> str:
        """The model, and the suite when the run has variants in several: what a line names."""
        return self.model if self.suite is None else f"{self.model} in suite {self.suite}"

    @property
    def significant(self) -> bool:
        """Whether the paired sign test calls the lead real (p below 0.05)."""
        return self.comparison.significant and self.comparison.delta > 0

    @property
    def line(self) -> str:
        """The lead as the run summary states it."""
        a, b = self.comparison.a.stats, self.comparison.b.stats
        if a.pass_rate == b.pass_rate:
            return (
                f"Prompt variants on {self.where}: {self.best} and {self.runner_up} tie at "
                f"{b.pass_rate:.0%}"
            )
        verdict = "significant" if self.significant else "not significant"
        return (
            f"Best prompt on {self.where}: {self.best} ({b.pass_rate:.0%}, against "
            f"{a.pass_rate:.0%} for {self.runner_up}); the lead is {verdict} "
            f"(p = {self.comparison.p_value:.2g}, {self.comparison.shared} cases paired)"
        )


def variant_leads(run: RunResult) -> list[VariantLead]:
    """For each suite and model that ran two or more prompt variants: best against runner-up.

    Variants belong to a suite: those of two suites are never ranked against each other
    (they share no case to pair).
    """
    suites: dict[str | None, list[CaseResult]] = {}
    for result in run.results:
        if result.variant:
            suites.setdefault(result.suite, []).append(result)
    if len(suites) < 2:
        return _leads(run, None)
    leads = []
    for suite, results in suites.items():
        leads += _leads(run.model_copy(update={"results": results}), suite)
    return leads


def _leads(run: RunResult, suite: str | None) -> list[VariantLead]:
    """The leads of each model over the variants of `run` (one suite's, when `suite` says)."""
    stats = run.stats()
    variants: dict[str, dict[str, str]] = {}  # model -> variant -> column
    for result in run.results:
        if result.variant:
            variants.setdefault(result.model, {})[result.variant] = result.column
    leads = []
    for model in [m for m in run.models if m in variants] + [
        m for m in variants if m not in run.models
    ]:
        columns = variants[model]
        if len(columns) < 2:
            continue
        # Highest pass rate first; a tie keeps the suite's order of the variants.
        ranked = sorted(columns, key=lambda v: -stats[columns[v]].pass_rate)
        best, second = ranked[0], ranked[1]
        comparison = compare_models(run, columns[second], run, columns[best], (stats, stats))
        leads.append(VariantLead(model, best, second, comparison, suite))
    return leads


def prompt_changes(run_a: RunResult, run_b: RunResult) -> list[str]:
    """The prompt variants whose text differs between the runs (by the hash each recorded)."""
    before: dict[str, Any] = run_a.config.get("prompts") or {}
    after: dict[str, Any] = run_b.config.get("prompts") or {}
    changes = []
    for suite, variants in after.items():
        old = before.get(suite) or {}
        for name, digest in variants.items():
            if name not in old:
                changes.append(f"prompt {suite} · {name} is new in B")
            elif old[name] != digest:
                changes.append(f"prompt {suite} · {name} changed ({old[name]} → {digest})")
        changes += [f"prompt {suite} · {name} is not in B" for name in old if name not in variants]
    return changes


def _columns(run: RunResult, variant: str) -> dict[str, str]:
    """Model -> its column of `variant` in the run."""
    return {r.model: r.column for r in run.results if r.variant == variant}


def _no_variant(run: RunResult, variant: str) -> ConfigError:
    """The error of a run that has no results of `variant`, naming the variants it has."""
    known = sorted({r.variant for r in run.results if r.variant})
    have = ", ".join(known) if known else "none"
    return ConfigError(f"run {run.run_id} has no prompt variant {variant!r} (its variants: {have})")


def variant_pairs(
    run_a: RunResult,
    variant_a: str,
    run_b: RunResult,
    variant_b: str,
    models: list[tuple[str, str]] | None = None,
) -> list[tuple[str, str]]:
    """The (column of A, column of B) pairs comparing two variants, model by model."""
    columns_a, columns_b = _columns(run_a, variant_a), _columns(run_b, variant_b)
    for run, variant, columns in ((run_a, variant_a, columns_a), (run_b, variant_b, columns_b)):
        if not columns:
            raise _no_variant(run, variant)
    wanted = models or [(m, m) for m in columns_a if m in columns_b]
    pairs = [(columns_a[a], columns_b[b]) for a, b in wanted if a in columns_a and b in columns_b]
    if not pairs:
        raise ConfigError(
            f"variants {variant_a!r} and {variant_b!r} ran on no common model: name the two "
            "models with --model-a and --model-b"
        )
    return pairs
