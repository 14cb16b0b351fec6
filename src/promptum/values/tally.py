"""`RunTally`: a run's figures counted as its results arrive, without keeping the results.

The summary, per-model stats, check stats, the gate and flaky detection read a tally; a
run that keeps its results builds one from them, a streamed run is counted by the runner.
Memory: a few counters per column, one float per latency, the first failures to show,
and two counters per repeated case (only when cases repeat).
"""

from __future__ import annotations

import heapq
import math
import statistics
from array import array
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from promptum.foundations.sums import add_exact as _add_exact
from promptum.values.asr import AttackRates, AttackTally
from promptum.values.case_result import CaseResult
from promptum.values.grade import CHECK_KINDS
from promptum.values.metrics import MetricFigures, MetricTally
from promptum.values.stats import CaseRate, CheckStats, ModelStats

SHOWN_FAILURES = 25
"""The failures a tally keeps (the first in plan order) for the summary to show."""


def _percentile(values: array[float], fraction: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(fraction * 100) - 1]


_COUNTED = (
    "checks_passed",
    "checks_total",
    "assertions_passed",
    "assertions_total",
    "input_tokens",
    "output_tokens",
    "costed",
)
"""The figures a column counts as `ModelStats` has them: the same names, shown as counted."""


@dataclass(slots=True)
class _Column:
    """The running figures of one column (a model, or ``model · variant``)."""

    model_order: int
    first: int
    """The plan position of its first result: columns are listed in plan order."""
    statuses: Counter[str] = field(default_factory=Counter)
    """Its results by status: ``pass``, ``fail`` and ``error``."""
    checks_passed: int = 0
    checks_total: int = 0
    assertions_passed: int = 0
    assertions_total: int = 0
    judge_sum: list[float] = field(default_factory=list)
    """Partial sums (`math.fsum` of them is exact), so the mean does not depend on order."""
    judge_count: int = 0
    latencies: array[float] = field(default_factory=lambda: array("d"))
    input_tokens: int = 0
    output_tokens: int = 0
    cost: list[float] = field(default_factory=list)
    cached_cost: list[float] = field(default_factory=list)
    costed: int = 0
    model: str = ""
    variant: str | None = None

    def stats(self, name: str) -> ModelStats:
        """The figures as `ModelStats` of column `name` (a model when the column has none)."""
        statuses = self.statuses
        return ModelStats(
            model=self.model or name,
            variant=self.variant,
            total=statuses.total(),
            passed=statuses["pass"],
            failed=statuses["fail"],
            errors=statuses["error"],
            judge_mean=math.fsum(self.judge_sum) / self.judge_count if self.judge_count else None,
            latency_p50_ms=_percentile(self.latencies, 0.50),
            latency_p95_ms=_percentile(self.latencies, 0.95),
            cost_usd=math.fsum(self.cost),
            cached_cost_usd=math.fsum(self.cached_cost),
            **{figure: getattr(self, figure) for figure in _COUNTED},
        )


@dataclass(slots=True)
class FirstInPlan:
    """The first few results of one kind in plan order, and how many there were."""

    limit: int
    count: int = 0
    columns: set[str] = field(default_factory=set)
    _heap: list[tuple[int, int, CaseResult]] = field(default_factory=list)
    """(-position, arrival, result): the largest position is dropped first."""

    def add(self, result: CaseResult, position: int) -> None:
        """Count `result`, keeping it if it is among the first `limit` in plan order."""
        self.count += 1
        self.columns.add(result.column)
        item = (-position, self.count, result)
        if len(self._heap) < self.limit:
            heapq.heappush(self._heap, item)
        elif item[0] > self._heap[0][0]:
            heapq.heapreplace(self._heap, item)

    def first(self) -> list[CaseResult]:
        """The kept results in plan order."""
        return [result for _, _, result in sorted(self._heap, key=lambda i: (-i[0], i[1]))]


class RunTally:
    """A run's figures, counted one result at a time."""

    def __init__(self, models: Iterable[str] = (), *, repeated: bool = True) -> None:
        self._model_order = {model: index for index, model in enumerate(models)}
        self._columns: dict[str, _Column] = {}
        self._variants = False
        self.count = 0
        self.passed = 0
        self.errors = 0
        self.cached = 0
        self.answered = 0
        self.repeated = False
        """Whether any result is a second or later repeat."""
        self.must_pass = 0
        self.conversations = 0
        """How many results are conversations (`CaseResult.turns`)."""
        self.failures = FirstInPlan(SHOWN_FAILURES)
        """Results that did not pass: the first in plan order, and how many."""
        self.must_pass_broken = FirstInPlan(SHOWN_FAILURES)
        self.attacks = AttackTally()
        """The red-team results, per column × goal × strategy (`asr()`)."""
        self.metrics = MetricTally()
        """The grades labelled with a metric, per metric × column (`metric_figures()`)."""
        self._rates: dict[tuple[str, str], tuple[int, CaseRate]] | None = {} if repeated else None

    @classmethod
    def of(cls, results: Iterable[CaseResult], models: Iterable[str] = ()) -> RunTally:
        """The tally of results already in plan order (a run that kept them)."""
        tally = cls(models)
        for position, result in enumerate(results):
            tally.add(result, position)
        return tally

    def add(self, result: CaseResult, position: int) -> None:
        """Count one result; `position` is its place in the run's plan (any order of arrival)."""
        self.count += 1
        status = result.status
        self.passed += status == "pass"
        self.errors += status == "error"
        self.repeated = self.repeated or result.repeat > 1
        self._variants = self._variants or bool(result.variant)
        self.conversations += result.turns is not None
        if status != "pass":
            self.failures.add(result, position)
        if result.must_pass:
            self.must_pass += 1
            if status != "pass":
                self.must_pass_broken.add(result, position)
        completion = result.completion
        if completion.ok:
            self.answered += 1
            self.cached += completion.cached
        self._add_to_column(result, position)
        self.attacks.add(result)
        self.metrics.add(result)
        if self._rates is not None:
            key = (result.column, result.key)
            entry = self._rates.get(key)
            if entry is None:
                entry = self._rates[key] = (position, CaseRate(result.key, result.column))
            elif position < entry[0]:
                entry = self._rates[key] = (position, entry[1])
            rate = entry[1]
            rate.total += 1
            rate.passed += status == "pass"
            rate.errors += status == "error"

    def _add_to_column(self, result: CaseResult, position: int) -> None:
        name = result.column
        column = self._columns.get(name)
        if column is None:
            order = self._model_order.get(result.model, len(self._model_order))
            column = self._columns[name] = _Column(
                order, position, model=result.model, variant=result.variant
            )
        column.first = min(column.first, position)
        column.statuses[result.status] += 1
        for grade in result.grades:
            if grade.kind in CHECK_KINDS:
                column.checks_total += 1
                column.checks_passed += grade.passed
            elif grade.kind == "assertion":
                column.assertions_total += 1
                column.assertions_passed += grade.passed
            elif grade.kind == "judge" and grade.score is not None:
                column.judge_count += 1
                _add_exact(column.judge_sum, grade.score)
        completion = result.completion
        if completion.latency_ms is not None and not completion.cached:
            column.latencies.append(completion.latency_ms)
        column.input_tokens += completion.input_tokens or 0
        column.output_tokens += completion.output_tokens or 0
        if completion.cost_usd is not None:
            column.costed += 1
        if completion.cost_usd:
            _add_exact(
                column.cached_cost if completion.cached else column.cost, completion.cost_usd
            )

    @property
    def pass_rate(self) -> float:
        """Passed results as a fraction of all results (0 when there are none)."""
        return self.passed / self.count if self.count else 0.0

    def columns(self) -> list[str]:
        """The columns in the order reports show them: the run's models, then plan order."""
        unseen = len(self._model_order)
        order = {name: (column.model_order, column.first) for name, column in self._columns.items()}
        if not self._variants:  # a column is a model: every model of the run, results or not
            for model, index in self._model_order.items():
                order.setdefault(model, (index, -1))
        return sorted(order, key=lambda name: order.get(name, (unseen, 0)))

    def stats(self) -> dict[str, ModelStats]:
        """Aggregate figures per column."""
        empty = _Column(0, 0)
        return {name: self._columns.get(name, empty).stats(name) for name in self.columns()}

    def check_stats(self) -> dict[str, CheckStats]:
        """Deterministic check counts per column."""
        stats = {}
        for name in self.columns():
            column = self._columns.get(name)
            passed, total = (column.checks_passed, column.checks_total) if column else (0, 0)
            stats[name] = CheckStats(passed=passed, total=total)
        return stats

    def metric_figures(self) -> MetricFigures:
        """Pass rate and mean score per metric and column (empty when no grade has a metric)."""
        return self.metrics.figures(self.columns())

    def asr(self) -> AttackRates:
        """The attack success rates of the red-team results, columns in report order."""
        return self.attacks.rates(self.columns())

    def flaky(self) -> list[CaseRate]:
        """Cases that passed on some repeats of a column and failed on others."""
        if self._rates is None:
            return []
        order = {name: index for index, name in enumerate(self.columns())}
        entries = sorted(self._rates.values(), key=lambda e: (order[e[1].model], e[0]))
        return [rate for _, rate in entries if rate.flaky]
