"""A run's plan, read in one pass over its cases: what it runs, and where each result goes.

Cases may be built only when read (a million-row CSV), so a run reads them as few times
as it can: once here for everything the run needs to know before its first call (models,
judges, parameters, targets, the resume fingerprint, the plan's shape), then once per
model while running. Here, a row copied from its file's prototype case is not made: it is
read as the prototype's settings and its own id, messages and vars (`CopiedRow`), and a
run of such rows as their fingerprint texts (`CopiedRun`), as the case store gives them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from promptum.cases import CaseStore, CopiedRow, CopiedRun, PlanItem, TestCase
from promptum.errors import ConfigError
from promptum.providers import Target
from promptum.runner._journal import PlanDigest


@dataclass(frozen=True, slots=True)
class Plan:
    """Where each unit (case, variant, model, repeat) stands in a run's plan, as one int.

    Reports list results in plan order, not finishing order, so two runs diff cleanly; a
    streamed run hands each result's position to its sinks instead of sorting them.
    """

    models: dict[str, int]
    repeats: int
    """The most repeats of any case: each (case, model) has this many positions."""
    slots: dict[tuple[str, str], int] | None
    """(key, variant) -> its place; None without variants, where a case's index is its place."""
    count: int
    """How many results the plan has."""

    def position(self, index: int, case: TestCase, model: str, repeat: int) -> int:
        """The place of `case` (the `index`-th of the cases) on `model`, repeat `repeat`."""
        slot = index if self.slots is None else self.slots[case.key, case.variant]
        return (slot * len(self.models) + self.models[model]) * self.repeats + repeat - 1


@dataclass(slots=True)
class Survey:
    """Everything a run needs to know of its cases before the first call, from one pass."""

    models: dict[str, None] = field(default_factory=dict)
    """The models the cases run on, in order of first use."""
    judge_models: set[str] = field(default_factory=set)
    simulator_models: set[str] = field(default_factory=set)
    """The models playing simulated users of conversations, set up like judges' models."""
    judges: set[tuple[str, float]] = field(default_factory=set)
    """(model, threshold) of every judge."""
    params: set[tuple[tuple[str, Any], ...]] = field(default_factory=set)
    """The sampling parameters of every case (`GenerationParams.sampling`)."""
    targets: dict[str, Target] = field(default_factory=dict)
    """The functions and services answering cases, by id."""
    count: int = 0
    """How many results the cases produce (models × repeats each)."""
    repeats: int = 1
    variants: bool = False
    fingerprint: str | None = None
    """A hash of everything that decides the results (the resume journal's key)."""
    _last: TestCase | None = field(default=None, repr=False, compare=False)
    """The case surveyed last: the next one sharing what it read of it adds only its count."""

    @classmethod
    def of(cls, cases: Sequence[TestCase], *, fingerprint: bool = False) -> Survey:
        """Survey `cases`; with `fingerprint`, hash them too (slower: every case's content)."""
        survey = cls()
        digest = PlanDigest() if fingerprint else None
        # A data file's rows copied from one case are read as rows, not made (most of a pass).
        items: Iterable[PlanItem] = cases.planned() if isinstance(cases, CaseStore) else cases
        for item in items:
            if isinstance(item, CopiedRun):  # rows of a data file, read as their texts
                survey._add(item.base)
                survey.count += (item.count - 1) * len(item.base.models) * item.base.repeat
                if digest is not None:
                    digest.add_run(item)
                continue
            if isinstance(item, CopiedRow):
                survey._add(item.base)  # it has the base's settings
                if digest is not None:
                    digest.add_copy(item)
                continue
            survey._add(item)
            if digest is not None:
                digest.add(item)
        if digest is not None:
            survey.fingerprint = digest.hexdigest()
        return survey

    def _add(self, case: TestCase) -> None:
        last = self._last
        if last is not None and _shares_settings(case, last):  # a data file's next row
            self.count += len(case.models) * case.repeat
            return
        self._last = case
        for model in case.models:
            self.models.setdefault(model, None)
        judge = case.grading.judge
        if judge is not None:
            self.judge_models.add(judge.model)
            self.judges.add((judge.model, judge.threshold))
        if case.simulate is not None:
            self.simulator_models.add(case.simulate.model)
        self.params.add(case.params.sampling())
        target = case.target
        if target is not None and self.targets.setdefault(target.id, target) != target:
            raise ConfigError(f"two different targets are named {target.id!r}: give one a `name`")
        self.count += len(case.models) * case.repeat
        self.repeats = max(self.repeats, case.repeat)
        self.variants = self.variants or bool(case.variant)

    def plan(self, cases: Sequence[TestCase], models: Sequence[str]) -> Plan:
        """The plan on `models`; with variants this reads the cases once more."""
        slots = None
        if self.variants:  # cases, then each case's variants, wherever the suite listed them
            keys: dict[str, int] = {}
            names: dict[str, int] = {}
            for case in cases:
                keys.setdefault(case.key, len(keys))
                names.setdefault(case.variant, len(names))
            slots = {
                (case.key, case.variant): keys[case.key] * len(names) + names[case.variant]
                for case in cases
            }
        ordered = {model: index for index, model in enumerate(models)}
        return Plan(ordered, self.repeats, slots, self.count)


def _shares_settings(case: TestCase, last: TestCase) -> bool:
    """Whether `case` holds the very objects `Survey._add` read of `last` (rows of one file)."""
    return (
        case.models is last.models
        and case.grading.judge is last.grading.judge
        and case.simulate is last.simulate
        and case.params is last.params
        and case.target is last.target
        and case.repeat == last.repeat
        and case.variant == last.variant
    )
