"""The results of a run: one `CaseResult` per case × model × repeat, gathered in a `RunResult`.

These pydantic models are the one contract between the runner (which produces them), the
reporters and the run store (which consume them); JSON export and import go through them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from promptum._legacy_grades import CHECK_KINDS, grades_from_channels, judge_verdict
from promptum._legacy_grades import check_results as legacy_check_results
from promptum._legacy_grades import eval_result as legacy_eval_result
from promptum.checks import CheckResult
from promptum.completion import Completion, ToolCall
from promptum.evaluations import EvalResult
from promptum.grades import Grade, GradeKind, Status, status_of_grades

_CHANNELS = frozenset({"check_results", "eval_result", "judge"})
"""The verdict fields of results before grades; read as derived properties now."""


def namespaced(suite: str | None, case_id: str) -> str:
    """``suite/case_id``: the form of a case id that is unique across the suites of a run."""
    return f"{suite}/{case_id}" if suite else case_id


class Message(BaseModel):
    """One chat message sent to a model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: tuple[ToolCall, ...] | None = None
    """An assistant turn's tool calls, replayed (OpenAI's message shape)."""
    tool_call_id: str | None = None
    """For a ``tool`` message: which call this is the result of."""

    @model_serializer(mode="wrap")
    def _without_unset_tools(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Plain messages dump as they always have: the cache key and stored runs stay the same.
        data: dict[str, Any] = handler(self)
        for name in ("tool_calls", "tool_call_id"):
            if data.get(name) is None:
                data.pop(name, None)
        return data


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
    """The outcome of one case on one model (one repeat), with every grade and reason."""

    model_config = ConfigDict(extra="forbid")

    case_id: str
    """The case's own id, unique within its suite."""
    model: str
    repeat: int = 1
    """Which repeat this is, from 1 (files written before promptum 0.x counted from 0)."""
    status: Status
    suite: str | None = None
    """The suite the case belongs to; None for the Python API and results stored before."""
    variant: str | None = None
    """The prompt variant (a suite's `prompts:`) this result ran; None without variants."""
    messages: list[Message] = Field(default_factory=list)
    completion: Completion
    grades: list[Grade] = Field(default_factory=list)
    """Every verdict on the response, in grading order: checks, validator, assertions, judge."""
    expected_behavior: str | None = None
    tags: list[str] = Field(default_factory=list)
    source: str | None = None
    """Where the case was defined, as ``file:line`` when it came from a file."""
    must_pass: bool = False
    """Whether the case gates on its own: its failure or error fails the run."""

    @model_validator(mode="before")
    @classmethod
    def _from_channels(cls, data: Any) -> Any:
        # Results stored before grades existed (and code that still builds them that way)
        # carry `check_results`, `eval_result` and `judge`: each becomes grades.
        # A JSON report carries both: its grades, and those fields derived from them.
        if isinstance(data, dict) and _CHANNELS.intersection(data):
            legacy = "grades" not in data
            grades = grades_from_channels(data) if legacy else data["grades"]
            data = {key: value for key, value in data.items() if key not in _CHANNELS}
            data["grades"] = grades
            if legacy and data.get("status") == "pass":
                # Before grades, a judge that could not grade left a case passing: read
                # now, the same result is an error, as a run today would record it.
                data["status"] = status_of_grades(grades)
        return data

    @property
    def key(self) -> str:
        """The case id unique within a run: ``suite/case``, or the case id outside a suite."""
        return namespaced(self.suite, self.case_id)

    @property
    def column(self) -> str:
        """Where reports put the result: its model, or ``model · variant`` with variants."""
        return f"{self.model} · {self.variant}" if self.variant else self.model

    def of_kind(self, *kinds: GradeKind) -> list[Grade]:
        """The grades of the given kinds, in grading order."""
        return [grade for grade in self.grades if grade.kind in kinds]

    @property
    def check_results(self) -> list[CheckResult]:
        """The check and validator grades as `CheckResult`s (the reference's view)."""
        return legacy_check_results(self.grades)

    @property
    def eval_result(self) -> EvalResult | None:
        """The field assertion grades as an `EvalResult`, or None when there are none."""
        return legacy_eval_result(self.grades)

    @property
    def judge(self) -> JudgeVerdict | None:
        """The judge grades as one verdict, or None when the response was not judged."""
        return judge_verdict(self.grades)

    @property
    def judge_score(self) -> float | None:
        """The mean score of the judge's grades (criteria), None when nothing was scored."""
        scores = [g.score for g in self.grades if g.kind == "judge" and g.score is not None]
        return statistics.fmean(scores) if scores else None

    @property
    def checks_passed(self) -> bool:
        """Whether every deterministic check passed (true when there are none)."""
        return all(g.passed for g in self.grades if g.kind in CHECK_KINDS)

    @property
    def failed_checks(self) -> list[CheckResult]:
        """The checks that failed, in declaration order."""
        return [result for result in self.check_results if not result.passed]

    @property
    def reasons(self) -> list[str]:
        """Every reason this result did not pass, for a person to read."""
        if self.completion.error is not None:
            return [f"error: {self.completion.error}"]
        return [grade.summary for grade in self.grades if not grade.passed]


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
    grades = [g for r in results for g in r.grades]
    checks = [g for g in grades if g.kind in CHECK_KINDS]
    assertions = [g for g in grades if g.kind == "assertion"]
    scores = [g.score for g in grades if g.kind == "judge" and g.score is not None]
    return ModelStats(
        model=model,
        total=len(results),
        passed=sum(r.status == "pass" for r in results),
        failed=sum(r.status == "fail" for r in results),
        errors=sum(r.status == "error" for r in results),
        checks_passed=sum(g.passed for g in checks),
        checks_total=len(checks),
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
        """Results grouped by column (model, or ``model · variant``), in the run's model order."""
        if not any(result.variant for result in self.results):
            grouped: dict[str, list[CaseResult]] = {model: [] for model in self.models}
            for result in self.results:
                grouped.setdefault(result.model, []).append(result)
            return grouped
        # One column per model × variant: models in the run's order, variants as they appear.
        order = {model: index for index, model in enumerate(self.models)}
        columns: dict[str, list[CaseResult]] = {}
        for result in sorted(self.results, key=lambda r: order.get(r.model, len(order))):
            columns.setdefault(result.column, []).append(result)
        return columns

    def stats(self) -> dict[str, ModelStats]:
        """Aggregate figures per model."""
        return {model: _stats_for(model, rs) for model, rs in self.by_model().items()}

    def get_check_stats(self) -> dict[str, CheckStats]:
        """Deterministic check counts per model."""
        counts: dict[str, CheckStats] = defaultdict(CheckStats)
        for column in self.by_model():
            counts[column] = CheckStats()
        for result in self.results:
            stats = counts[result.column]
            checks = result.of_kind(*CHECK_KINDS)
            stats.passed += sum(g.passed for g in checks)
            stats.total += len(checks)
        return dict(counts)
