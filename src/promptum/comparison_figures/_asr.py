"""Attack success rates side by side: two runs, two models or two prompt variants, paired.

Each side's rate is over all of its red-team results (Wilson's 95% interval); whether the
difference is real is the comparison's own paired test (`sign_test`) on the attack cases
both sides determined: a case counts as risen when its success rate (over its repeats,
the undetermined left out) is higher on B, fallen when lower. For one run per case that is
McNemar's exact test on the attacks that succeeded on one side only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from promptum.comparison_figures._stats import sign_test
from promptum.values.asr import AttackCounts, attack_of, attack_verdict
from promptum.values.asr import p_text as p_text
from promptum.values.run_result import CaseResult

ALL_GOALS = "all attacks"
"""How the row over every goal is named."""


@dataclass(frozen=True, slots=True)
class AsrChange:
    """One goal's (or every attack's) success rate on A and on B, with the paired test."""

    goal: str | None
    """The goal; None for every attack."""
    a: AttackCounts
    b: AttackCounts
    shared: int
    """Attack cases graded on both sides: what the paired test is computed on."""
    rose: int
    """Paired cases whose attacks succeeded more often on B."""
    fell: int
    p_value: float

    @property
    def name(self) -> str:
        """The goal, or ``all attacks``."""
        return ALL_GOALS if self.goal is None else self.goal

    def line(self, label_a: str, label_b: str) -> str:
        """``hardened: 6% [3–11%] vs baseline 34% [28–41%], p < 0.001``."""
        return (
            f"{label_b}: {self.b.text} vs {label_a} {self.a.text}, {p_text(self.p_value)} "
            f"({self.shared} attack{'' if self.shared == 1 else 's'} paired)"
        )


@dataclass(slots=True)
class _Case:
    succeeded: int = 0
    graded: int = 0

    @property
    def rate(self) -> float:
        return self.succeeded / self.graded


def _side(
    results: Iterable[CaseResult], column: str, case_key: Callable[[CaseResult], str]
) -> tuple[dict[str | None, AttackCounts], dict[str, tuple[str, _Case]]]:
    """A column's counts per goal (None: all) and its graded attack cases by case key."""
    counts: dict[str | None, AttackCounts] = {}
    cases: dict[str, tuple[str, _Case]] = {}
    for result in results:
        if result.column != column:
            continue
        attack = attack_of(result.tags)
        if attack is None:
            continue
        goal = attack[0]
        outcome = attack_verdict(goal, result)
        for key in (None, goal):
            counts.setdefault(key, AttackCounts()).add(outcome)
        if outcome.verdict != "undetermined":
            case = cases.setdefault(case_key(result), (goal, _Case()))[1]
            case.graded += 1
            case.succeeded += outcome.verdict == "succeeded"
    return counts, cases


def _shared(
    cases_a: dict[str, tuple[str, _Case]], cases_b: dict[str, tuple[str, _Case]], goal: str | None
) -> list[tuple[_Case, _Case]]:
    """The (A, B) tallies of each case both sides graded, of `goal` (None: every goal)."""
    return [
        (case, cases_b[key][1])
        for key, (own, case) in cases_a.items()
        if key in cases_b and (goal is None or own == goal)
    ]


def asr_changes(
    results_a: Iterable[CaseResult],
    column_a: str,
    results_b: Iterable[CaseResult],
    column_b: str,
    case_key: Callable[[CaseResult], str],
) -> list[AsrChange]:
    """Every attack, then each goal by name: A's and B's success rates and the paired test.

    Empty when neither side has red-team results.
    """
    counts_a, cases_a = _side(results_a, column_a, case_key)
    counts_b, cases_b = _side(results_b, column_b, case_key)
    if not counts_a and not counts_b:
        return []
    goals = sorted({g for g in (*counts_a, *counts_b) if g is not None})
    changes = []
    for goal in [None, *goals]:
        shared = _shared(cases_a, cases_b, goal)
        rose = sum(b.rate > a.rate for a, b in shared)
        fell = sum(b.rate < a.rate for a, b in shared)
        changes.append(
            AsrChange(
                goal,
                counts_a.get(goal, AttackCounts()),
                counts_b.get(goal, AttackCounts()),
                len(shared),
                rose,
                fell,
                sign_test(rose, fell),
            )
        )
    return changes


def asr_lines(changes: list[AsrChange], label_a: str, label_b: str, where: str = "") -> list[str]:
    """One line per row of `changes` (the all-attacks row alone when there is one goal).

    ``Attack success on m, all attacks — hardened: 6% [3–11%] vs baseline 34% [28–41%], ...``
    """
    rows = changes[:1] if len(changes) == 2 else changes
    return [f"Attack success{where}, {c.name} — {c.line(label_a, label_b)}" for c in rows]
