"""The results of a run: one `CaseResult` per case × model × repeat, gathered in a `RunResult`.

These pydantic models are the one contract between the runner (which produces them), the
reporters and the run store (which consume them); JSON export and import go through them.
Only `Message` is built when this module is imported: loading a suite makes messages but no
results, so the other models are built on first use (``defer_build``).
"""

from __future__ import annotations

import statistics
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from promptum.completion import Completion, ToolCall
from promptum.grade_views import CheckResult, EvalResult, grades_from_channels, judge_verdict
from promptum.grade_views import JudgeVerdict as JudgeVerdict
from promptum.grade_views import check_results as view_check_results
from promptum.grade_views import eval_result as view_eval_result
from promptum.grades import CHECK_KINDS, Grade, GradeKind, Status, status_of_grades

if TYPE_CHECKING:
    from promptum.tally import RunTally

_CHANNELS = frozenset({"check_results", "eval_result", "judge"})
"""The verdict fields of results before grades; read as derived properties now."""
_RUN_FACTS = frozenset({"planned_results", "resumed", "warnings", "git_commit", "git_dirty"})
"""The run's facts that `RunResult.config` carried before they had fields of their own."""


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


class CaseResult(BaseModel):
    """The outcome of one case on one model (one repeat), with every grade and reason."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

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
        return view_check_results(self.grades)

    @property
    def eval_result(self) -> EvalResult | None:
        """The field assertion grades as an `EvalResult`, or None when there are none."""
        return view_eval_result(self.grades)

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
    cached_cost_usd: float = 0.0

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.passed / self.total if self.total else 0.0

    @property
    def column(self) -> str:
        """Where reports put these figures: the model, or ``model · variant`` with variants."""
        return f"{self.model} · {self.variant}" if self.variant else self.model


class CheckStats(BaseModel):
    """How many checks passed for one model: the summary's ``Checks: N/M passed``."""

    model_config = ConfigDict(defer_build=True)

    passed: int = 0
    total: int = 0


def _now() -> datetime:
    return datetime.now(UTC)


class RunResult(BaseModel):
    """Every result of one run, with the run's facts."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    run_id: str
    suite: str = ""
    models: list[str] = Field(default_factory=list)
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime | None = None
    complete: bool = True
    """False when the run was interrupted before every case finished."""
    planned_results: int | None = None
    """How many results the run planned (cases × models × repeats); None when not recorded."""
    resumed: bool = False
    """Whether the run continued an interrupted one (`--resume`), keeping its results."""
    warnings: list[str] = Field(default_factory=list)
    """What went wrong beside the results (a sink that failed, responses not cached)."""
    git_commit: str | None = None
    """The commit checked out when the run was recorded; None outside a repository."""
    git_dirty: bool | None = None
    """Whether tracked files had uncommitted changes then; None without a commit."""
    config: dict[str, Any] = Field(default_factory=dict)
    """The settings the run was asked for (suites, judge, parameters, concurrency, gate)."""
    results: list[CaseResult] = Field(default_factory=list)
    _streamed: RunTally | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _facts_from_config(cls, data: Any) -> Any:
        # Runs written before these facts had fields of their own kept them in `config`.
        if isinstance(data, dict) and isinstance(data.get("config"), dict):
            config = data["config"]
            moved = _RUN_FACTS.intersection(config)
            if moved:
                data = {**data, "config": {k: v for k, v in config.items() if k not in moved}}
                for key in moved:
                    data.setdefault(key, config[key])
        return data

    @property
    def duration_s(self) -> float | None:
        """Wall-clock seconds from start to finish, when finished."""
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    def tally(self) -> RunTally:
        """The run's figures: as counted while it streamed, else counted from `results`."""
        if self._streamed is not None:
            return self._streamed
        from promptum.tally import RunTally

        return RunTally.of(self.results, self.models)

    def streamed(self, tally: RunTally) -> None:
        """Mark the run as streamed: its figures are `tally`'s, its results were not kept."""
        self._streamed = tally

    @property
    def result_count(self) -> int:
        """How many results the run has, kept or streamed."""
        return self._streamed.count if self._streamed is not None else len(self.results)

    @property
    def passed(self) -> bool:
        """Whether every result passed."""
        tally = self.tally()
        return tally.passed == tally.count

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.tally().pass_rate

    def cache_counts(self) -> tuple[int, int]:
        """How many answers came from the response cache, and how many answers there were."""
        tally = self.tally()
        return tally.cached, tally.answered

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
        """Aggregate figures per model (per ``model · variant`` column with variants)."""
        return self.tally().stats()

    def get_check_stats(self) -> dict[str, CheckStats]:
        """Deterministic check counts per model."""
        return self.tally().check_stats()
