"""Named metrics and weights: a case's weighted score, and a run's figures per metric.

A check (``metric:``, ``weight:``) or a judge criterion (``metric:``) labels its grade in
`Grade.details`; nothing else on a grade changes. A case with a ``threshold:`` passes when
the weighted mean of its grades' values reaches it (`thresholded_status`), and its result
records that score and threshold. `MetricTally` folds results into pass rates and mean
scores per metric and column, one result at a time, as `RunTally` folds everything else.
See docs/metrics.md.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import AfterValidator

from promptum.foundations.sums import add_exact
from promptum.values.case_result import CaseResult
from promptum.values.grade import Grade, Status, status_of_grades

METRIC = "metric"
"""The `Grade.details` key naming the metric a grade is counted under."""
WEIGHT = "weight"
"""The `Grade.details` key of a grade's weight in its case's score (absent: 1)."""

_NAME = re.compile(r"[\w.-]+")
_TOLERANCE = 1e-9
"""How far below a threshold a score may fall and still reach it: a mean of floats carries
rounding noise (2 of 3 is 0.666…), which must not turn a pass into a fail."""

Label = Mapping[str, Any]
"""What a check adds to its grade's details: its metric and weight, where it sets them."""


def metric_problem(name: str) -> str | None:
    """What is wrong with a metric's name (None when it will do)."""
    if _NAME.fullmatch(name):
        return None
    return (
        f"metric name {name!r} must be one word: letters, digits, '_', '-' or '.' "
        "(reports show it as a row of their metrics table)"
    )


def _checked_name(name: str) -> str:
    problem = metric_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


MetricName = Annotated[str, AfterValidator(_checked_name)]
"""A metric's name as a check or a judge criterion declares it, checked when loaded."""


def labelled(grades: list[Grade], labels: Sequence[Label]) -> list[Grade]:
    """`grades` with `labels[i]` added to the details of grade i."""
    for index, label in enumerate(labels[: len(grades)]):
        if label:
            grade = grades[index]
            # A new grade: a passed check's grade is one object shared by every response.
            grades[index] = dataclasses.replace(grade, details={**grade.details, **label})
    return grades


def grade_weight(grade: Grade) -> float:
    """The grade's weight in its case's score: its ``weight`` detail, else 1."""
    weight = grade.details.get(WEIGHT, 1.0)
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        return 1.0
    # A suite's weight is checked when it loads; a python check's own details are not.
    return float(weight) if math.isfinite(weight) and weight >= 0 else 1.0


def grade_value(grade: Grade) -> float:
    """What a grade is worth, 0-1: its score if it has one, else 1 passed and 0 failed.

    A grade that could not grade is worth 0: nothing earned it anything.
    """
    if grade.error is not None:
        return 0.0
    if grade.score is not None:
        return grade.score
    return 1.0 if grade.passed else 0.0


def weighted_score(grades: Iterable[Grade], *, errors_as: float | None = None) -> float | None:
    """The weighted mean of the grades' values; None when nothing weighs anything.

    ``errors_as`` values a grade that could not grade as that instead of 0.
    """
    weighed = [(grade_weight(grade), grade) for grade in grades]
    # Weights scaled by the largest: two weights of 1e308 must not sum to infinity.
    largest = max((weight for weight, _ in weighed), default=0.0)
    if largest <= 0:
        return None
    total: list[float] = []
    weights: list[float] = []
    for weight, grade in weighed:
        value = errors_as if errors_as is not None and grade.error is not None else None
        total.append(weight / largest * (grade_value(grade) if value is None else value))
        weights.append(weight / largest)
    weight_sum = math.fsum(weights)
    if weight_sum <= 0:
        return None
    return min(1.0, math.fsum(total) / weight_sum)


def thresholded_status(grades: list[Grade], threshold: float) -> tuple[Status, float | None]:
    """A thresholded case's status and weighted score.

    Pass when the score reaches `threshold` and every grade graded. A grade that could not
    grade makes the case an error, unless the case fails even with that grade at full marks
    (a failure outranks an error, as in `status_of_grades`). With nothing weighed (every
    weight 0, or no grades) the score is None and every grade must pass, as without one.
    """
    score = weighted_score(grades)
    if score is None:
        return status_of_grades(grades), None
    if not any(grade.error is not None for grade in grades):
        return ("pass" if reaches(score, threshold) else "fail"), score
    best = weighted_score(grades, errors_as=1.0)
    return ("error" if best is not None and reaches(best, threshold) else "fail"), score


def reaches(score: float, threshold: float) -> bool:
    """Whether `score` reaches `threshold`, rounding noise aside."""
    return score >= threshold - _TOLERANCE


def score_line(result: CaseResult) -> str | None:
    """``weighted score 0.75 >= threshold 0.7``: why a thresholded result passed or not."""
    if result.threshold is None:
        return None
    if result.score is None:
        return f"no grade weighs anything: every grade must pass (threshold {result.threshold:g})"
    sign = ">=" if reaches(result.score, result.threshold) else "<"
    return f"weighted score {result.score:.3g} {sign} threshold {result.threshold:g}"


@dataclass(frozen=True, slots=True)
class MetricStats:
    """How one metric went in one column (a model, or ``model · variant``)."""

    metric: str
    column: str
    model: str
    variant: str | None
    total: int
    """Grades counted under the metric, errors included."""
    passed: int
    failed: int
    errors: int
    mean_score: float | None
    """Mean value of the grades that graded (a passed grade without a score is 1)."""

    @property
    def pass_rate(self) -> float:
        """Passed grades as a fraction of all of them (an error is not a pass)."""
        return self.passed / self.total if self.total else 0.0

    @property
    def line(self) -> str:
        """``3/4 passed (75%), mean 0.80``, with the errors when there are any."""
        mean = "–" if self.mean_score is None else f"{self.mean_score:.2f}"
        errors = f", {self.errors} error{'s' * (self.errors != 1)}" if self.errors else ""
        return f"{self.passed}/{self.total} passed ({self.pass_rate:.0%}), mean {mean}{errors}"

    def as_json(self) -> dict[str, Any]:
        """The figures as reports and ``--json`` write them."""
        return {
            "model": self.model,
            "variant": self.variant,
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "pass_rate": self.pass_rate,
            "mean_score": self.mean_score,
        }


@dataclass(slots=True)
class _Counts:
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    sum: list[float] = field(default_factory=list)
    """Partial sums (`add_exact`) of the graded grades' values: the mean is order-free."""


MetricFigures = dict[str, dict[str, MetricStats]]
"""Per metric (by name), per column (in the run's column order): its figures."""


class MetricTally:
    """Per-metric figures of a run, counted one result at a time (see `RunTally`)."""

    __slots__ = ("_columns", "_counts", "thresholded")

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str], _Counts] = {}
        self._columns: dict[str, tuple[str, str | None]] = {}
        self.thresholded = 0
        """Results of cases with a ``threshold:``."""

    def add(self, result: CaseResult) -> None:
        """Count the labelled grades of one result."""
        self.thresholded += result.threshold is not None
        column: str | None = None
        for grade in result.grades:
            details = grade.details
            if not details:
                continue
            metric = details.get(METRIC)
            # A python check's own details are not checked when the suite loads: a name
            # that is not one word (markup, control characters) is not counted.
            if not isinstance(metric, str) or metric_problem(metric) is not None:
                continue
            if column is None:
                column = result.column
                self._columns.setdefault(column, (result.model, result.variant))
            counts = self._counts.get((metric, column))
            if counts is None:
                counts = self._counts[(metric, column)] = _Counts()
            counts.total += 1
            if grade.error is not None:
                counts.errors += 1
                continue
            counts.passed += grade.passed
            counts.failed += not grade.passed
            add_exact(counts.sum, grade_value(grade))

    def __bool__(self) -> bool:
        return bool(self._counts)

    def figures(self, columns: Sequence[str]) -> MetricFigures:
        """Per metric, sorted by name, its figures per column in the order of `columns`."""
        order = {name: index for index, name in enumerate(columns)}
        figures: MetricFigures = {}
        for metric, column in sorted(
            self._counts, key=lambda key: (key[0], order.get(key[1], len(order)), key[1])
        ):
            counts = self._counts[(metric, column)]
            graded = counts.total - counts.errors
            model, variant = self._columns[column]
            figures.setdefault(metric, {})[column] = MetricStats(
                metric=metric,
                column=column,
                model=model,
                variant=variant,
                total=counts.total,
                passed=counts.passed,
                failed=counts.failed,
                errors=counts.errors,
                mean_score=math.fsum(counts.sum) / graded if graded else None,
            )
        return figures


def figures_json(figures: MetricFigures) -> dict[str, dict[str, dict[str, Any]]]:
    """The figures as JSON reports and ``runs show --json`` write them: metric, column, figures."""
    return {
        metric: {column: stats.as_json() for column, stats in columns.items()}
        for metric, columns in figures.items()
    }
