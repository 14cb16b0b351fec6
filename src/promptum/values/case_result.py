"""`CaseResult`: the outcome of one case on one model (one repeat), and the `Message`s it sent.

Only `Message` is built when this module is imported: loading a suite makes messages but no
results, so `CaseResult` is built on first use (``defer_build``).
"""

from __future__ import annotations

import statistics
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from promptum.values.completion import Completion, ToolCall
from promptum.values.content import ContentPart
from promptum.values.documented_views import (
    CheckResult,
    EvalResult,
    JudgeVerdict,
    grades_from_channels,
    judge_verdict,
)
from promptum.values.documented_views import check_results as view_check_results
from promptum.values.documented_views import eval_result as view_eval_result
from promptum.values.grade import CHECK_KINDS, Grade, GradeKind, Status, status_of_grades

_CHANNELS = frozenset({"check_results", "eval_result", "judge"})
"""The verdict fields of results before grades; read as derived properties now."""


def _absent(value: object) -> bool:
    return value is None


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
    parts: tuple[ContentPart, ...] | None = None
    """A user message's images, documents and audio, sent after its text (docs/multimodal.md)."""

    @field_validator("parts")
    @classmethod
    def _parts_of_a_user(
        cls, parts: tuple[ContentPart, ...] | None, info: ValidationInfo
    ) -> tuple[ContentPart, ...] | None:
        # Checked only when parts are given: a plain message is made at no extra cost.
        if parts is not None and not parts:
            raise ValueError("`parts` is None or holds at least one part")
        if parts and info.data.get("role") != "user":
            raise ValueError("only a user message carries images, documents or audio")
        return parts

    @model_serializer(mode="wrap")
    def _without_unset_tools(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Plain messages dump as they always have: the cache key and stored runs stay the same.
        data: dict[str, Any] = handler(self)
        for name in ("tool_calls", "tool_call_id", "parts"):
            if data.get(name) is None:
                data.pop(name, None)
        return data


TURN = "turn"
"""The `Grade.details` key of a conversation turn's grades: the turn's number, from 1.
A conversation's grades without it are graded over the whole conversation."""


class TurnResult(BaseModel):
    """One turn of a conversation: the user's message as sent, and the reply to it.

    The turn's grades are the result's grades whose ``details["turn"]`` is its number.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    query: str
    """The user's message, rendered (or written by a simulated user)."""
    completion: Completion
    status: Status
    """What this turn's own grades say (error when its call failed)."""


def _channels_as_grades(data: dict[str, Any]) -> dict[str, Any]:
    """A result's data with `check_results`, `eval_result` and `judge` read as its grades."""
    legacy = "grades" not in data
    grades = grades_from_channels(data) if legacy else data["grades"]
    data = {key: value for key, value in data.items() if key not in _CHANNELS}
    data["grades"] = grades
    if legacy and data.get("status") == "pass":
        # Before grades, a judge that could not grade left a case passing: read
        # now, the same result is an error, as a run today would record it.
        data["status"] = status_of_grades(grades)
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
    score: float | None = Field(default=None, exclude_if=_absent)
    """The weighted mean of the grades' values, for a case with a `threshold` (docs/metrics.md);
    written only when set, so results of other cases read as they always have."""
    threshold: float | None = Field(default=None, exclude_if=_absent)
    """The case's `threshold:`: it passed when `score` reached it; None: every grade must pass."""
    turns: list[TurnResult] | None = Field(default=None, exclude_if=_absent)
    """A conversation's turns in order (docs/conversations.md); None for a single request.
    `completion` is then the last reply, with latency, tokens and cost summed over turns."""

    @model_validator(mode="before")
    @classmethod
    def _from_channels(cls, data: Any) -> Any:
        # Results stored before grades existed (and code that still builds them that way)
        # carry `check_results`, `eval_result` and `judge`: each becomes grades.
        # A JSON report carries both: its grades, and those fields derived from them.
        if isinstance(data, dict) and "reviews" in data:
            # People's reviews, beside the grades in a report of a stored run, live in the
            # run store (docs/review.md): a report read back is the result alone.
            data = {key: value for key, value in data.items() if key != "reviews"}
        if isinstance(data, dict) and _CHANNELS.intersection(data):
            data = _channels_as_grades(data)
        return data

    @property
    def key(self) -> str:
        """The case id unique within a run: ``suite/case``, or the case id outside a suite."""
        return namespaced(self.suite, self.case_id)

    @property
    def failing_turn(self) -> int | None:
        """The number (from 1) of a conversation's first turn that did not pass, else None."""
        for number, turn in enumerate(self.turns or (), start=1):
            if turn.status != "pass":
                return number
        return None

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
        if self.threshold is not None:
            return self._thresholded_reasons(self.threshold)
        return [self._reason(grade) for grade in self.grades if not grade.passed]

    def _reason(self, grade: Grade) -> str:
        """`grade.summary`, naming the turn (or the whole conversation) it graded."""
        if self.turns is None:
            return grade.summary
        turn = grade.details.get(TURN)
        return f"turn {turn}: {grade.summary}" if turn else f"conversation: {grade.summary}"

    def _thresholded_reasons(self, threshold: float) -> list[str]:
        # A thresholded case may pass with a grade failed: that grade is no reason it did
        # not pass. One that did not pass says its score first, then what cost it.
        if self.status == "pass":
            return []
        failed = [self._reason(grade) for grade in self.grades if not grade.passed]
        if self.score is None or self.status == "error":
            return failed
        return [f"weighted score {self.score:.3g} < threshold {threshold:g}", *failed]
