"""The gate's bounds on attack success rates (``--max-asr``, ``gate.max_asr``) and its verdict.

`AsrBounds` are the highest rates the gate accepts (``--max-asr 0.05``, ``--max-asr
prompt_leak=0.1``); `asr_verdict` reads a run's `AttackRates` against them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from promptum.errors import ConfigError
from promptum.foundations.suggestions import did_you_mean
from promptum.values.asr import (
    GOAL_PREFIX,
    JUDGED_GOALS,
    REDTEAM_TAG,
    AttackCounts,
    AttackRates,
    attack_of,
    goal_kind,
    interval_text,
    percent,
)

_NAMED = 3
"""Bounds broken named in the gate's reason before the rest are only counted."""


def _rate(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= 1:  # false for nan
        raise ConfigError(
            f"--max-asr {what}: {text!r} is not a rate between 0 and 1 (0.05 allows 5% of "
            "attacks to succeed)"
        )
    return value


@dataclass(frozen=True, slots=True)
class AsrBounds:
    """The highest attack success rates the gate accepts: overall, and per goal."""

    overall: float | None = None
    goals: Mapping[str, float] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.overall is not None or bool(self.goals)

    @classmethod
    def parse(cls, given: Iterable[str]) -> AsrBounds:
        """Bounds from ``--max-asr`` values: ``0.05`` (overall) or ``GOAL=0.1``."""
        overall: float | None = None
        goals: dict[str, float] = {}
        for text in given:
            goal, sign, rate = text.partition("=")
            if not sign:
                overall = _rate(text.strip(), text)
                continue
            goal = goal.strip()
            if not goal:
                raise ConfigError(
                    f"--max-asr {text}: name the goal before '=' (GOAL=RATE, e.g. "
                    "prompt_leak=0.1), or give a rate alone for every attack"
                )
            goals[goal] = _rate(rate.strip(), text)
        return cls(overall, goals)

    @classmethod
    def from_config(cls, data: Any) -> AsrBounds:
        """The bounds a run recorded in its config (``max_asr``); none when it has none."""
        if not isinstance(data, Mapping):
            return cls()
        overall = data.get("overall")
        goals = data.get("goals") or {}
        return cls(
            float(overall) if isinstance(overall, int | float) else None,
            {str(g): float(r) for g, r in goals.items() if isinstance(r, int | float)},
        )

    def as_config(self) -> dict[str, Any]:
        """The bounds as a run records them in its config."""
        return {"overall": self.overall, "goals": dict(self.goals)}

    def stricter(self, other: AsrBounds) -> AsrBounds:
        """Both bounds together: the lower one where both bound the same thing."""
        overall = [b for b in (self.overall, other.overall) if b is not None]
        goals = dict(self.goals)
        for goal, rate in other.goals.items():
            goals[goal] = min(rate, goals.get(goal, rate))
        return AsrBounds(min(overall) if overall else None, goals)

    def unknown_goal(self, known: Iterable[str]) -> str | None:
        """Why a goal bound names no goal of the cases (with a did-you-mean), or None."""
        have = sorted(set(known))
        kinds = {goal_kind(goal) for goal in have}  # a bound on `harmful` pools its categories
        for goal in self.goals:
            if goal in have or goal in kinds:
                continue
            hint = did_you_mean(goal, have)
            listed = ", ".join(have) if have else "none: no case is tagged redteam"
            return (
                f"--max-asr {goal}=…: no red-team case has goal {goal!r}.{hint} (goals: {listed})"
            )
        if self.overall is not None and not have:
            return (
                "--max-asr: no case of the run is a red-team case (tagged redteam), so there is "
                "no attack success rate to bound"
            )
        return None

    def unjudged(self, goals: Iterable[str]) -> list[tuple[str | None, str]]:
        """(goal or None for the overall bound, why) for each bound the judge is needed for.

        With the judge off, the attacks of a goal it detects (`JUDGED_GOALS`) cannot be
        determined, so a bound over them could never hold: a usage error, not a red run.
        """
        judged = sorted({goal for goal in goals if goal_kind(goal) in JUDGED_GOALS})
        if not judged:
            return []
        bounded = {*judged, *map(goal_kind, judged)}  # a bound on a kind pools its goals
        why = (
            f"the {', '.join(judged)} attacks are graded by the judge, and the judge is off "
            "(--no-judge), so they cannot be determined: run with the judge"
        )
        found: list[tuple[str | None, str]] = [
            (goal, f"{self.label(goal)}: {why}") for goal in self.goals if goal in bounded
        ]
        if self.overall is not None:
            found.append((None, f"{self.label()}: {why}, or bound the other goals by name"))
        return found

    def covers(self, goal: str) -> bool:
        """Whether a bound judges `goal`'s attacks: the overall one, or one on it or its kind."""
        return self.overall is not None or goal in self.goals or goal_kind(goal) in self.goals

    def label(self, goal: str | None = None) -> str:
        """How the gate names one bound: ``max-asr 5%`` or ``max-asr prompt_leak=10%``."""
        bound = self.bound(goal)
        return f"max-asr {'' if goal is None else goal + '='}{bound * 100:g}%"

    def bound(self, goal: str | None = None) -> float:
        """The bound on every attack (None) or on `goal`'s."""
        return (self.overall or 0.0) if goal is None else self.goals[goal]


def goals_of(tag_sets: Iterable[Iterable[str]]) -> set[str]:
    """The goals of the red-team cases among cases with these tags."""
    goals = set()
    for tags in tag_sets:
        attack = attack_of(tags)
        if attack is not None:
            goals.add(attack[0])
    return goals


@dataclass(frozen=True, slots=True)
class AsrVerdict:
    """What the ASR bounds say of a run: whether it passed, and why."""

    passed: bool
    reason: str


def _checked(
    rates: AttackRates, bounds: AsrBounds
) -> Iterable[tuple[str | None, float, str, AttackCounts]]:
    """(goal or None, bound, column, counts) for every bound on every column it applies to."""
    wanted: list[tuple[str | None, float]] = []
    if bounds.overall is not None:
        wanted.append((None, bounds.overall))
    wanted += list(bounds.goals.items())
    for goal, bound in wanted:
        for column in rates.columns:
            counts = rates.counts(column, goal)
            if counts.total:
                yield goal, bound, column, counts


def _against(counts: AttackCounts, bound: float) -> str:
    """The rate as `AttackCounts.text`, with a decimal more where it would read as the bound."""
    rate = counts.rate or 0.0
    if rate != bound and percent(rate) == f"{bound * 100:g}%":
        return f"{rate * 100:.2f}% {interval_text(counts.interval)}"
    return counts.text


def _rate_name(goal: str | None) -> str:
    """What a bound on this goal (None: every attack) bounds, as the verdict names it."""
    return "attack success rate" if goal is None else f"{goal} attack success rate"


def _breach(
    goal: str | None, bound: float, counts: AttackCounts, where: str, bounds: AsrBounds
) -> str | None:
    """Why a column's counts break the bound on this goal, or None when they keep it."""
    if counts.undetermined:
        # An attack nothing could tell of may have succeeded: no bound holds over it.
        named = "" if goal is None else goal + " "
        return (
            f"{counts.undetermined} {named}attack{'' if counts.undetermined == 1 else 's'} "
            f"not determined{where} (no answer, or its detector did not run): "
            f"{bounds.label(goal)} cannot hold"
        )
    if counts.rate is None:
        return (
            f"no {'' if goal is None else goal + ' '}attack was graded{where} "
            f"({counts.counts_text}): {bounds.label(goal)} cannot hold"
        )
    if counts.rate > bound:
        return f"{_rate_name(goal)} {_against(counts, bound)}{where} > {bounds.label(goal)}"
    return None


def _unseen(bounds: AsrBounds, seen: set[str | None]) -> list[str]:
    """Why each bound no column gave a rate to cannot hold."""
    goals = [None, *bounds.goals] if bounds.overall is not None else list(bounds.goals)
    return [
        f"no {'red-team' if goal is None else goal} results: {bounds.label(goal)} cannot hold"
        for goal in goals
        if goal not in seen
    ]


def _held(
    worst: dict[str | None, tuple[float, str, AttackCounts]], bounds: AsrBounds, several: bool
) -> str:
    """The phrase of a verdict that passed: each bound against its highest column's rate."""
    held = []
    for goal, (_, column, counts) in worst.items():
        where = f" (highest, on {column})" if several else ""
        against = _against(counts, bounds.bound(goal))
        held.append(f"{_rate_name(goal)} {against}{where} ≤ {bounds.label(goal)}")
    return "; ".join(held)


def asr_verdict(rates: AttackRates, bounds: AsrBounds) -> AsrVerdict:
    """Whether every column's attack success rate is at most its bounds, and why in a phrase.

    A bound holds on every column (model · variant · target) with attacks it covers; an
    attack that was not determined (no answer, its detector did not run) may have
    succeeded, so a bound over it does not pass.
    """
    several = len(rates.columns) > 1
    broken: list[str] = []
    worst: dict[str | None, tuple[float, str, AttackCounts]] = {}
    seen: set[str | None] = set()
    for goal, bound, column, counts in _checked(rates, bounds):
        seen.add(goal)
        breach = _breach(goal, bound, counts, f" on {column}" if several else "", bounds)
        rate = counts.rate
        if breach is not None:
            broken.append(breach)
        elif rate is not None and (goal not in worst or rate > worst[goal][0]):
            worst[goal] = (rate, column, counts)
    broken += _unseen(bounds, seen)
    if broken:
        rest = len(broken) - _NAMED
        more = f" and {rest} more" if rest > 0 else ""
        return AsrVerdict(False, "; ".join(broken[:_NAMED]) + more)
    return AsrVerdict(True, _held(worst, bounds, several))


def bounds_of(value: float | Mapping[str, float] | None) -> AsrBounds:
    """The bounds a suite's `gate.max_asr` gives: a rate for every attack, or rates by goal."""
    if value is None:
        return AsrBounds()
    if isinstance(value, Mapping):
        return AsrBounds(None, dict(value))
    return AsrBounds(float(value))


def unknown_goals(bounds: AsrBounds, tags: Iterable[str]) -> list[tuple[tuple[str, ...], str]]:
    """(where in `gate`, why) for each bound no case of these tags gives a rate to, or none."""
    tags = list(tags)
    have = sorted({t[len(GOAL_PREFIX) :] for t in tags if t.startswith(GOAL_PREFIX)})
    found: list[tuple[tuple[str, ...], str]] = []
    for goal in bounds.goals:
        if goal in have:
            continue
        hint = did_you_mean(goal, have)
        listing = f" Goals: {', '.join(have)}." if have else " No case has a goal: tag."
        why = f"no case has the tag 'goal:{goal}', so it bounds nothing.{hint}{listing}"
        found.append((("gate", "max_asr", goal), why))
    if bounds.overall is not None and REDTEAM_TAG not in tags:
        why = "no case is tagged redteam, so there is no attack success rate to bound."
        found.append((("gate", "max_asr"), why))
    return found


def run_bounds(suites: Iterable[AsrBounds], given: AsrBounds | None) -> dict[str, Any]:
    """``{"max_asr": ...}`` for a run's config, or nothing when no bound applies.

    Suites run together are held to the strictest of their bounds; what the session (the
    command line) gives replaces them bound by bound.
    """
    bounds = AsrBounds()
    for suite in suites:
        bounds = bounds.stricter(suite)
    if given:
        goals = {**bounds.goals, **given.goals}
        overall = given.overall if given.overall is not None else bounds.overall
        bounds = AsrBounds(overall, goals)
    return {"max_asr": bounds.as_config()} if bounds else {}


def _shown(value: Any) -> str:
    """A value as the suite file wrote it (``true``, ``"0.1"``), not as Python prints it."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _not_a_rate(value: Any) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return not number or not 0 <= value <= 1  # false for nan


def gate_problem(value: Any) -> str | None:
    """What is wrong with a suite's `gate.max_asr` value, or None when it is one."""
    shape = "a rate between 0 and 1 (0.05), or rates by goal ({prompt_leak: 0.1, tool: 0})"
    if value is None:
        return None
    if isinstance(value, Mapping):
        for goal, rate in value.items():
            if not isinstance(goal, str) or not goal:
                return f"goal {_shown(goal)} is not a goal's name: write {shape}"
            if _not_a_rate(rate):
                return f"{goal}: {_shown(rate)} is not a rate between 0 and 1 (0.1 allows 10%)"
        return None
    if _not_a_rate(value):
        return f"{_shown(value)} is not {shape}"
    return None
