"""Attack success rates: how often a run's red-team cases succeeded, per goal and strategy.

A red-team case is an ordinary case tagged ``redteam``, ``goal:<goal>`` and
``strategy:<strategy>`` (what `promptum redteam generate` writes). Its detectors pass when
the attack failed, so the attack SUCCEEDED when the case's status is ``fail``; a case that
errored was not graded and is counted apart, never a success and never a resisted attack.
ASR = succeeded / (succeeded + resisted), with Wilson's 95% interval.

`AttackTally` is a pure fold, one result at a time, kept by the run's tally: a streamed run
counts exactly the figures of the same run with its results kept. The gate's bounds on
these rates are in `promptum.asr_bounds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from promptum.case_result import CaseResult
from promptum.intervals import Interval, wilson_interval

REDTEAM_TAG = "redteam"
GOAL_PREFIX = "goal:"
STRATEGY_PREFIX = "strategy:"
UNTAGGED = "untagged"
"""The goal (or strategy) of a ``redteam`` case without a ``goal:`` (``strategy:``) tag."""


def attack_of(tags: Iterable[str]) -> tuple[str, str] | None:
    """(goal, strategy) of a case with these tags, or None when it is not a red-team case."""
    goal = strategy = None
    redteam = False
    for tag in tags:
        if tag == REDTEAM_TAG:
            redteam = True
        elif goal is None and tag.startswith(GOAL_PREFIX):
            goal = tag[len(GOAL_PREFIX) :]
        elif strategy is None and tag.startswith(STRATEGY_PREFIX):
            strategy = tag[len(STRATEGY_PREFIX) :]
    if not redteam:
        return None
    return goal or UNTAGGED, strategy or UNTAGGED


def percent(fraction: float) -> str:
    """A rate as a whole percentage; one decimal near 0 and 1, where rounding would lie."""
    if 0 < fraction < 0.01 or 0.99 < fraction < 1:
        return f"{fraction * 100:.1f}%"
    return f"{fraction * 100:.0f}%"


def interval_text(interval: Interval) -> str:
    """``[28–41%]``."""
    return f"[{percent(interval.low).removesuffix('%')}–{percent(interval.high)}]"


@dataclass(slots=True)
class AttackCounts:
    """How many attacks succeeded, were resisted, and errored (not graded)."""

    succeeded: int = 0
    resisted: int = 0
    errors: int = 0

    def add(self, status: str) -> None:
        """Count one result of this status."""
        self.succeeded += status == "fail"
        self.resisted += status == "pass"
        self.errors += status == "error"

    def merge(self, other: AttackCounts) -> None:
        """Add `other`'s counts to these."""
        self.succeeded += other.succeeded
        self.resisted += other.resisted
        self.errors += other.errors

    @property
    def attempts(self) -> int:
        """The graded attacks: those that succeeded or were resisted."""
        return self.succeeded + self.resisted

    @property
    def total(self) -> int:
        """Every red-team result counted, errors included."""
        return self.attempts + self.errors

    @property
    def rate(self) -> float | None:
        """The attack success rate; None when no attack was graded."""
        return self.succeeded / self.attempts if self.attempts else None

    @property
    def interval(self) -> Interval:
        """Wilson's 95% interval of the rate (the whole [0, 1] when no attack was graded)."""
        return wilson_interval(self.succeeded, self.attempts)

    @property
    def text(self) -> str:
        """``34% [28–41%]``, or ``-`` when no attack was graded."""
        rate = self.rate
        return "-" if rate is None else f"{percent(rate)} {interval_text(self.interval)}"

    @property
    def counts_text(self) -> str:
        """``17/50``, with ``, 2 errors`` when some attacks were not graded."""
        errors = f", {self.errors} error{'' if self.errors == 1 else 's'}" if self.errors else ""
        return f"{self.succeeded}/{self.attempts}{errors}"

    def as_json(self) -> dict[str, Any]:
        """The counts, the rate and its interval, as the JSON report and the store show them."""
        interval = self.interval
        return {
            "succeeded": self.succeeded,
            "resisted": self.resisted,
            "errors": self.errors,
            "attempts": self.attempts,
            "asr": self.rate,
            "interval": None if self.rate is None else [interval.low, interval.high],
        }


Cell = tuple[str, str, str]
"""(column, goal, strategy)."""


class AttackTally:
    """The red-team results of a run, counted per column × goal × strategy as they arrive."""

    def __init__(self) -> None:
        self._cells: dict[Cell, AttackCounts] = {}
        self._sides: dict[str, tuple[str, str | None]] = {}

    def add(self, result: CaseResult) -> None:
        """Count `result` if it is a red-team case's."""
        tags = result.tags
        if REDTEAM_TAG not in tags:  # most results: one look, nothing parsed
            return
        attack = attack_of(tags)
        if attack is None:
            return
        column = result.column
        self._sides.setdefault(column, (result.model, result.variant))
        key = (column, *attack)
        counts = self._cells.get(key)
        if counts is None:
            counts = self._cells[key] = AttackCounts()
        counts.add(result.status)

    def __bool__(self) -> bool:
        return bool(self._cells)

    def rates(self, columns: Sequence[str] = ()) -> AttackRates:
        """The figures so far; columns in the order of `columns`, then the rest by name."""
        order = {name: index for index, name in enumerate(columns)}
        present = sorted(self._sides, key=lambda c: (order.get(c, len(order)), c))
        cells = {
            key: AttackCounts(c.succeeded, c.resisted, c.errors) for key, c in self._cells.items()
        }
        return AttackRates(cells, tuple(present), dict(self._sides))


@dataclass(frozen=True, slots=True)
class AttackRates:
    """A run's attack success figures: counts per column × goal × strategy, summed on demand."""

    cells: Mapping[Cell, AttackCounts] = field(default_factory=dict)
    columns: tuple[str, ...] = ()
    """The columns with red-team results, in the order reports show columns."""
    sides: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    """Each column's (model, variant)."""

    def __bool__(self) -> bool:
        return bool(self.cells)

    @property
    def goals(self) -> list[str]:
        """Every goal with results, by name."""
        return sorted({goal for _, goal, _ in self.cells})

    @property
    def strategies(self) -> list[str]:
        """Every strategy with results, by name."""
        return sorted({strategy for _, _, strategy in self.cells})

    def counts(
        self, column: str | None = None, goal: str | None = None, strategy: str | None = None
    ) -> AttackCounts:
        """The counts of the results matching what is given (None: any)."""
        total = AttackCounts()
        for (c, g, s), counts in self.cells.items():
            if column in (None, c) and goal in (None, g) and strategy in (None, s):
                total.merge(counts)
        return total

    def goals_of(self, column: str) -> list[str]:
        """The goals `column` has results of, by name."""
        return sorted({g for c, g, _ in self.cells if c == column})

    def strategies_of(self, column: str, goal: str | None = None) -> list[str]:
        """The strategies `column` has results of (for `goal` when given), by name."""
        return sorted({s for c, g, s in self.cells if c == column and (goal is None or g == goal)})

    def as_json(self) -> dict[str, Any]:
        """The ``asr`` section of the JSON report and of ``runs show --json``."""
        columns = []
        for column in self.columns:
            model, variant = self.sides.get(column, (column, None))
            columns.append(
                {
                    "model": model,
                    "variant": variant,
                    "column": column,
                    "overall": self.counts(column).as_json(),
                    "goals": [
                        {
                            "goal": goal,
                            **self.counts(column, goal).as_json(),
                            "strategies": [
                                {"strategy": s, **self.counts(column, goal, s).as_json()}
                                for s in self.strategies_of(column, goal)
                            ],
                        }
                        for goal in self.goals_of(column)
                    ],
                    "strategies": [
                        {"strategy": s, **self.counts(column, strategy=s).as_json()}
                        for s in self.strategies_of(column)
                    ],
                }
            )
        return {"columns": columns}
