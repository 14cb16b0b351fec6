"""The figures of a run: per model (`ModelStats`), its checks (`CheckStats`), per case (`CaseRate`).

`RunResult.stats()`, `.get_check_stats()` and the tally build them; reports, the gate and
compare read them. The pydantic models are built on first use (``defer_build``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict


class ModelStats(BaseModel):
    """Aggregate figures for one model (one model and prompt variant, with variants) in a run."""

    model_config = ConfigDict(defer_build=True)

    model: str
    variant: str | None = None
    """The prompt variant these figures are of; None without variants."""
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    checks_passed: int = 0
    checks_total: int = 0
    assertions_passed: int = 0
    assertions_total: int = 0
    judge_mean: float | None = None
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    """Spend of this run's own calls; cached responses count in `cached_cost_usd`."""
    costed: int = 0
    """Answers whose call reported a cost (cached ones too): none for a model without a price."""
    cached_cost_usd: float = 0.0

    @property
    def spent(self) -> float | None:
        """`cost_usd` as reports show it: None when no answer had a cost (no price), not $0."""
        return self.cost_usd if self.costed else None

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.passed / self.total if self.total else 0.0

    @property
    def column(self) -> str:
        """Where reports put these figures: the model, or ``model · variant`` with variants."""
        return f"{self.model} · {self.variant}" if self.variant else self.model


def total_spent(stats: Iterable[ModelStats]) -> float | None:
    """The run's own spend over these figures; None when no answer of any had a cost."""
    known = [figures.cost_usd for figures in stats if figures.costed]
    return math.fsum(known) if known else None


class CheckStats(BaseModel):
    """How many checks passed for one model: the summary's ``Checks: N/M passed``."""

    model_config = ConfigDict(defer_build=True)

    passed: int = 0
    total: int = 0


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
