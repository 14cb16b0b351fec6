"""Human reviews of results: a person's good/bad mark or overridden verdict, kept beside grades.

A review never changes a recorded grade: reports show it next to them, and calibration
compares the judge's verdicts with it (docs/review.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from promptum.foundations.redaction import scrub
from promptum.values.case_result import CaseResult

Verdict = Literal["good", "bad"]
Override = Literal["pass", "fail"]
ResultKey = tuple[str, str | None, str, int]
"""Which result of a run: its case key (``suite/case``), variant (None without), model, repeat."""

ReviewsOf = Sequence["Review"]
ReviewMap = Mapping[ResultKey, ReviewsOf]
"""People's reviews of a run's results, by the result they review: what reports are given."""

MAX_COMMENT = 4000
"""The longest comment a review keeps, in characters."""
MAX_FIELD = 200
"""The longest reviewer name or criterion name a review keeps."""
_NOTED = 3
"""How many skipped reviews a note describes; the others are counted."""
_SHOWN = 60
"""How much of an unreadable stored value a note quotes."""


_IDENTITY = ("run_id", "case_key", "variant", "model", "repeat")
_TEXTS = ("comment", "reason", "criterion", "reviewer")


def result_key(result: CaseResult) -> ResultKey:
    """The key a review of `result` names it by."""
    return (result.key, result.variant or None, result.model, result.repeat)


def _now() -> datetime:
    return datetime.now(UTC)


def _text_problem(name: str, text: object) -> str | None:
    """Why `text` cannot be a review's `name` (not a string, or not storable), or None."""
    if text is None:
        return None
    if not isinstance(text, str):
        return f"{name} must be text, not {type(text).__name__}"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, as JSON's "\ud800" gives: no file holds it
        return f"{name} is not valid text (it holds a lone surrogate character)"
    return None


@dataclass(frozen=True, slots=True)
class Review:
    """A person's review of one result (or of one judge criterion's grade on it)."""

    run_id: str
    case_key: str
    """The result's `CaseResult.key`: ``suite/case``, or the case id outside a suite."""
    variant: str | None
    model: str
    repeat: int
    criterion: str | None = None
    """None: the whole result; else the name of the judge criterion (grade) reviewed."""
    verdict: Verdict | None = None
    """good: it should pass; bad: it should fail."""
    override: Override | None = None
    """The status the reviewer says the result should have (with a `reason`)."""
    score: float | None = None
    """The reviewer's own score, 0 to 1."""
    comment: str | None = None
    reason: str | None = None
    """Why the verdict is overridden; required with `override`."""
    reviewer: str = ""
    created_at: datetime = field(default_factory=_now)

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem is not None:
            raise ValueError(problem)
        if self.variant == "":
            object.__setattr__(self, "variant", None)  # "" and None both mean no variant
        if self.created_at.tzinfo is None:
            object.__setattr__(self, "created_at", self.created_at.replace(tzinfo=UTC))

    def _problem(self) -> str | None:
        """What is wrong with this review, said so the writer can fix it; None when valid."""
        # In this order: a later step relies on what an earlier one checked (a text's type).
        for problem_of in _PROBLEMS:
            problem = problem_of(self)
            if problem is not None:
                return problem
        return None

    @property
    def result_key(self) -> ResultKey:
        """The result reviewed, as `result_key` names it."""
        return (self.case_key, self.variant, self.model, self.repeat)

    @property
    def label(self) -> str:
        """How a report shows it: ``good``, ``bad, score 0.2``, ``override → fail``."""
        text = f"override → {self.override}" if self.override else str(self.verdict)
        if self.override and self.verdict:
            text = f"{self.verdict}, {text}"
        # "bad 0.2" read as a "bad score": the number is said to be the reviewer's score.
        return text if self.score is None else f"{text}, score {self.score:g}"

    @property
    def should_pass(self) -> bool:
        """The human label: whether the reviewer says the result (or criterion) should pass."""
        if self.override is not None:
            return self.override == "pass"
        return self.verdict == "good"

    def scrubbed(self, secrets: tuple[str, ...]) -> Review:
        """The review with each of `secrets` replaced in what people typed (a pasted API key)."""
        comment, reason = (
            None if t is None else scrub(t, secrets) for t in (self.comment, self.reason)
        )
        reviewer = scrub(self.reviewer, secrets)
        if (comment, reason, reviewer) == (self.comment, self.reason, self.reviewer):
            return self
        return replace(self, comment=comment, reason=reason, reviewer=reviewer)

    def to_dict(self) -> dict[str, Any]:
        """The review as JSON-ready data (``created_at`` in ISO 8601); None fields left out."""
        data = asdict(self)
        data["created_at"] = self.created_at.isoformat()
        return {key: value for key, value in data.items() if value is not None}

    def brief(self) -> dict[str, Any]:
        """`to_dict` without the result's identity: how reports list it under the result."""
        data = self.to_dict()
        for name in _IDENTITY:
            data.pop(name, None)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Review:
        """A review from `to_dict`'s form (or a request's JSON); ValueError saying what is wrong."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown review field {unknown[0]!r}; known: {', '.join(sorted(known))}"
            )
        values = {"variant": None, **data}  # `to_dict` leaves out a None variant
        created = values.get("created_at")
        if isinstance(created, str):
            try:
                values["created_at"] = datetime.fromisoformat(created)
            except ValueError:
                raise ValueError(f"created_at {created!r} is not an ISO 8601 time") from None
        try:
            return cls(**values)
        except TypeError as exc:  # a required field missing
            raise ValueError(
                f"a review needs run_id, case_key, variant, model and repeat: {exc}"
            ) from None


def _identity_problem(review: Review) -> str | None:
    """What is missing or wrong in which result the review names."""
    for name in ("run_id", "case_key", "model"):
        value = getattr(review, name)
        if not isinstance(value, str) or not value.strip():
            return f"a review needs {name}: the result's {name.replace('_', ' ')}"
    repeat = review.repeat
    if not isinstance(repeat, int) or isinstance(repeat, bool) or repeat < 1:
        return f"repeat must be a whole number from 1, not {repeat!r}"
    return None


def _mark_problem(review: Review) -> str | None:
    """What is wrong with the verdict and the override, or that there is neither."""
    if review.verdict not in (None, *get_args(Verdict)):
        return f"verdict must be 'good' or 'bad', not {review.verdict!r}"
    if review.override not in (None, *get_args(Override)):
        return f"override must be 'pass' or 'fail', not {review.override!r}"
    if review.verdict is None and review.override is None:
        return "a review marks the result good or bad (verdict) or overrides it (override)"
    return None


def _texts_problem(review: Review) -> str | None:
    """The first text field that is not storable text."""
    for name in ("run_id", "case_key", "variant", "model", *_TEXTS):
        problem = _text_problem(name, getattr(review, name))
        if problem is not None:
            return problem
    return None


def _reason_problem(review: Review) -> str | None:
    if review.override is not None and not (review.reason or "").strip():
        return "an override needs a reason: say why the result should " + review.override
    return None


def _score_problem(review: Review) -> str | None:
    score = review.score
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | float):
        return f"score must be a number from 0 to 1, not {score!r}"
    if not math.isfinite(score) or not 0 <= score <= 1:
        return f"score must be from 0 to 1, not {score!r}"
    return None


def _length_problem(review: Review) -> str | None:
    """The first text longer than a review keeps."""
    for name, limit in (("comment", MAX_COMMENT), ("reason", MAX_COMMENT)):
        text = getattr(review, name)
        if text is not None and len(text) > limit:
            return f"{name} is {len(text)} characters; at most {limit} are kept: shorten it"
    for name in ("criterion", "reviewer"):
        text = getattr(review, name)
        if text is not None and len(text) > MAX_FIELD:
            return f"{name} is {len(text)} characters; at most {MAX_FIELD} are kept"
    return None


def _author_problem(review: Review) -> str | None:
    """A missing reviewer, or a creation time that is not a datetime."""
    if not review.reviewer.strip():
        return "a review needs a reviewer: who reviewed it (--reviewer, or the OS user)"
    if not isinstance(review.created_at, datetime):
        return "created_at must be a datetime"
    return None


_PROBLEMS = (
    _identity_problem,
    _mark_problem,
    _texts_problem,
    _reason_problem,
    _score_problem,
    _length_problem,
    _author_problem,
)


@dataclass(frozen=True, slots=True)
class ReviewedResult:
    """A stored result that people reviewed, with its reviews (oldest first)."""

    run_id: str
    suite: str
    result: CaseResult
    reviews: tuple[Review, ...]


@dataclass(frozen=True, slots=True)
class SkippedReview:
    """A stored review row that is not a review (a hand edit, another tool): left out when read."""

    row: int
    """Its id in the store's ``reviews`` table."""
    run_id: str
    problem: str
    """What is wrong with it, e.g. ``created_at 'xyz' is not a date``."""

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data, as `promptum judge calibrate --json` lists it."""
        return asdict(self)


def shown_value(value: object) -> str:
    """`value`'s repr, cut to a length a note can quote (a stored value may be any size)."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def skipped_note(skipped: Sequence[SkippedReview]) -> str | None:
    """``1 review skipped: created_at 'xyz' is not a date (reviews row 7 of run r1)...``.

    Pages and commands that read reviews say so with it rather than failing on such a row;
    None when nothing was skipped.
    """
    if not skipped:
        return None
    count = len(skipped)
    described = "; ".join(
        f"{item.problem} (reviews row {item.row} of run {item.run_id})" for item in skipped[:_NOTED]
    )
    more = f"; and {count - _NOTED} more" if count > _NOTED else ""
    one = count == 1
    noun, rows, them = ("review", "that row", "it") if one else ("reviews", "those rows", "them")
    return (
        f"{count} {noun} skipped: {described}{more}; "
        f"correct or delete {rows} of the run store's reviews table to count {them}"
    )
