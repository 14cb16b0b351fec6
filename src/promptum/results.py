"""The results of a run: one `CaseResult` per case × model × repeat, gathered in a `RunResult`.

These pydantic models are the one contract between the runner (which produces them), the
reporters and the run store (which consume them); JSON export and import go through them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from promptum.checks import CheckResult
from promptum.completion import Completion
from promptum.evaluations import EvalResult

Status = Literal["pass", "fail", "error"]


class Message(BaseModel):
    """One chat message sent to a model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class JudgeVerdict(BaseModel):
    """An LLM judge's grade of one response against the case's expected behaviour."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    score: float | None = None
    passed: bool = False
    reason: str = ""
    threshold: float = 0.7
    error: str | None = None
    """Set when the judge could not grade; the case is then an error, never a pass."""


class CaseResult(BaseModel):
    """The outcome of one case on one model (one repeat), with every reason."""

    model_config = ConfigDict(extra="forbid")

    case_id: str
    model: str
    repeat: int = 0
    status: Status
    messages: list[Message] = Field(default_factory=list)
    completion: Completion
    check_results: list[CheckResult] = Field(default_factory=list)
    eval_result: EvalResult | None = None
    judge: JudgeVerdict | None = None
    expected_behavior: str | None = None
    tags: list[str] = Field(default_factory=list)
    source: str | None = None
    """Where the case was defined, as ``file:line`` when it came from a file."""
    must_pass: bool = False
    """Whether the case gates on its own: its failure or error fails the run."""

    @property
    def checks_passed(self) -> bool:
        """Whether every deterministic check passed (true when there are none)."""
        return all(result.passed for result in self.check_results)

    @property
    def failed_checks(self) -> list[CheckResult]:
        """The checks that failed, in declaration order."""
        return [result for result in self.check_results if not result.passed]

    @property
    def reasons(self) -> list[str]:
        """Every reason this result did not pass, for a person to read."""
        if self.completion.error is not None:
            return [f"error: {self.completion.error}"]
        reasons = [f"{c.type}: {c.reason}" for c in self.failed_checks]
        if self.eval_result is not None:
            reasons += [f"assertion {d.reason}" for d in self.eval_result.failures]
        if self.judge is not None and self.judge.error is not None:
            reasons.append(f"judge error: {self.judge.error}")
        elif self.judge is not None and not self.judge.passed:
            reasons.append(
                f"judge score {self.judge.score} < {self.judge.threshold}: {self.judge.reason}"
            )
        return reasons


class ModelStats(BaseModel):
    """Aggregate figures for one model in a run."""

    model: str
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
    cached_cost_usd: float = 0.0

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.passed / self.total if self.total else 0.0


class CheckStats(BaseModel):
    """How many checks passed for one model: the summary's ``Checks: N/M passed``."""

    passed: int = 0
    total: int = 0


def _percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(fraction * 100) - 1]


def _stats_for(model: str, results: list[CaseResult]) -> ModelStats:
    latencies = [
        r.completion.latency_ms
        for r in results
        if r.completion.latency_ms is not None and not r.completion.cached
    ]
    scores = [r.judge.score for r in results if r.judge and r.judge.score is not None]
    assertions = [d for r in results if r.eval_result for d in r.eval_result.details]
    return ModelStats(
        model=model,
        total=len(results),
        passed=sum(r.status == "pass" for r in results),
        failed=sum(r.status == "fail" for r in results),
        errors=sum(r.status == "error" for r in results),
        checks_passed=sum(c.passed for r in results for c in r.check_results),
        checks_total=sum(len(r.check_results) for r in results),
        assertions_passed=sum(d.passed for d in assertions),
        assertions_total=len(assertions),
        judge_mean=statistics.fmean(scores) if scores else None,
        latency_p50_ms=_percentile(latencies, 0.50),
        latency_p95_ms=_percentile(latencies, 0.95),
        input_tokens=sum(r.completion.input_tokens or 0 for r in results),
        output_tokens=sum(r.completion.output_tokens or 0 for r in results),
        cost_usd=sum(r.completion.cost_usd or 0.0 for r in results if not r.completion.cached),
        cached_cost_usd=sum(r.completion.cost_usd or 0.0 for r in results if r.completion.cached),
    )


def _now() -> datetime:
    return datetime.now(UTC)


class RunResult(BaseModel):
    """Every result of one run, with the run's facts."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    suite: str = ""
    models: list[str] = Field(default_factory=list)
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime | None = None
    complete: bool = True
    """False when the run was interrupted before every case finished."""
    config: dict[str, Any] = Field(default_factory=dict)
    results: list[CaseResult] = Field(default_factory=list)

    @property
    def duration_s(self) -> float | None:
        """Wall-clock seconds from start to finish, when finished."""
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    @property
    def passed(self) -> bool:
        """Whether every result passed."""
        return all(r.status == "pass" for r in self.results)

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        if not self.results:
            return 0.0
        return sum(r.status == "pass" for r in self.results) / len(self.results)

    def cache_counts(self) -> tuple[int, int]:
        """How many answers came from the response cache, and how many answers there were."""
        answers = [r.completion for r in self.results if r.completion.ok]
        return sum(c.cached for c in answers), len(answers)

    def by_model(self) -> dict[str, list[CaseResult]]:
        """Results grouped by model, in the run's model order."""
        grouped: dict[str, list[CaseResult]] = {model: [] for model in self.models}
        for result in self.results:
            grouped.setdefault(result.model, []).append(result)
        return grouped

    def stats(self) -> dict[str, ModelStats]:
        """Aggregate figures per model."""
        return {model: _stats_for(model, rs) for model, rs in self.by_model().items()}

    def get_check_stats(self) -> dict[str, CheckStats]:
        """Deterministic check counts per model."""
        counts: dict[str, CheckStats] = defaultdict(CheckStats)
        for model in self.models:
            counts[model] = CheckStats()
        for result in self.results:
            stats = counts[result.model]
            stats.passed += sum(c.passed for c in result.check_results)
            stats.total += len(result.check_results)
        return dict(counts)
