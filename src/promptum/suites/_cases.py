"""Sequences of cases that are not all held: parts joined, rows built on access, views.

A million-row CSV golden set is kept as the offsets of its rows, and `Session.select` or
`override` keep a view over the cases instead of a changed copy of each.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, overload

from promptum.cases import CopiedRow, CopiedRun, TestCase
from promptum.runner import grades_something, ungraded_fix
from promptum.suites._data_files import RawCase, RowFile
from promptum.suites._row_texts import RowTexts

Change = Callable[[TestCase], TestCase]


class RowBuild(Protocol):
    """Builds a data row's cases (one per prompt variant), or reads it for a plan."""

    def __call__(self, raw: RawCase) -> Sequence[TestCase]:
        """Row `raw`'s cases."""
        ...

    def plan(self, raw: RawCase) -> Sequence[TestCase] | CopiedRow:
        """Row `raw`'s cases, or the `CopiedRow` standing for its one case."""
        ...

    def copying(self, keys: frozenset[str]) -> TestCase | None:
        """The case rows setting `keys` are copied from; None while they are built in full."""
        ...


class _Cases(Sequence[TestCase]):
    """A read-only sequence of cases whose slices are lists."""

    @overload
    def __getitem__(self, index: int) -> TestCase: ...

    @overload
    def __getitem__(self, index: slice) -> list[TestCase]: ...

    def __getitem__(self, index: int | slice) -> TestCase | list[TestCase]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("case index out of range")
        return self._at(index)

    def _at(self, index: int) -> TestCase:
        raise NotImplementedError

    def plan_items(self) -> Iterator[TestCase | CopiedRow | CopiedRun]:
        """Every case in order, those copied from a data file's prototype not made (`Survey`)."""
        return _plan_items(self, None)

    def __eq__(self, other: object) -> bool:
        # Equal to a list, tuple or view holding the same cases, as a list of them would be.
        if not isinstance(other, list | tuple | _Cases):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self)} cases>"


class RowCases(_Cases):
    """The cases of a CSV or JSONL file, built from their row each time they are read.

    Holds the row index (16 bytes a row), not the cases: a row was validated when the file
    was loaded, and is built again, the same way, when the run reaches it. The file is not
    kept open in between, as a suite may have more data files than a process may open: it
    is opened again for each read, or once for a pass over every row, and refused unless it
    is the file that was loaded, unchanged.
    """

    def __init__(
        self,
        rows: RowFile,
        build: RowBuild,
        per_row: int,
        changed: Callable[[Change], RowBuild] | None = None,
        texts: RowTexts | None = None,
    ) -> None:
        self.rows = rows
        self.texts = texts
        """The copied rows' fingerprint texts noted while loading: a plan reads them instead."""
        self.build = build
        self.per_row = per_row
        """Cases per row: one per prompt variant."""
        self.changed = changed
        """A builder of the rows' cases each changed by a change every row gets alike."""

    def __len__(self) -> int:
        return len(self.rows) * self.per_row

    def _at(self, index: int) -> TestCase:
        row, variant = divmod(index, self.per_row)
        with self.rows.opened() as file:
            raw = self.rows.row(row, file)
        return self.build(raw)[variant]

    def __iter__(self) -> Iterator[TestCase]:
        return self._built(self.build)

    def _built(self, build: Callable[[RawCase], Sequence[TestCase]]) -> Iterator[TestCase]:
        with self.rows.opened() as file:
            for raw in self.rows.rows(file):
                yield from build(raw)

    def planned(self, change: Change | None) -> Iterator[TestCase | CopiedRow | CopiedRun]:
        """Every case, changed by `change` (see `each_changed`), as a plan reads it."""
        if change is not None and self.changed is None:
            yield from map(change, self)
            return
        build = self.build if change is None or self.changed is None else self.changed(change)
        with self.rows.opened() as file:
            if self.texts is not None:
                yield from self.texts.planned(build, file)
                return
            for raw in self.rows.rows(file):
                item = build.plan(raw)
                if isinstance(item, CopiedRow):
                    yield item
                else:
                    yield from item

    def each_changed(self, change: Change) -> Iterator[TestCase]:
        """Every case changed by `change`, which changes every row's cases alike."""
        if self.changed is None:
            return map(change, self)
        return self._built(self.changed(change))


class Cases(_Cases):
    """Parts (a tuple, a file's rows, a view) read as one sequence, in order."""

    def __init__(self, parts: Iterable[Sequence[TestCase]] = ()) -> None:
        self.parts = list(parts)
        """The parts, in order; a session appends to them (and to its own list part)."""

    def __len__(self) -> int:
        return sum(len(part) for part in self.parts)

    def _at(self, index: int) -> TestCase:
        for part in self.parts:
            if index < len(part):
                return part[index]
            index -= len(part)
        raise IndexError("case index out of range")

    def __iter__(self) -> Iterator[TestCase]:
        for part in self.parts:
            yield from part


class Mapped(_Cases):
    """Every case of `cases` changed by `change` when it is read (`override`, default models).

    A `uniform` change reads and changes only what the rows of a data file share (models,
    judge, repeats), not a row's id, messages or vars: read in order, those rows get it once,
    through the case they are copied from.
    """

    def __init__(self, cases: Sequence[TestCase], change: Change, uniform: bool = False) -> None:
        self.cases = cases
        self.change = change
        self.uniform = uniform

    def __len__(self) -> int:
        return len(self.cases)

    def _at(self, index: int) -> TestCase:
        return self.change(self.cases[index])

    def __iter__(self) -> Iterator[TestCase]:
        if self.uniform:
            return _each_changed(self.cases, self.change)
        return map(self.change, self.cases)


def _each_changed(cases: Sequence[TestCase], change: Change) -> Iterator[TestCase]:
    """Every case of `cases` changed by the uniform `change` (see `Mapped`)."""
    if isinstance(cases, Cases):
        for part in cases.parts:
            yield from _each_changed(part, change)
    elif isinstance(cases, RowCases):
        yield from cases.each_changed(change)
    elif isinstance(cases, Mapped) and cases.uniform:
        inner = cases.change
        yield from _each_changed(cases.cases, lambda case: change(inner(case)))
    else:
        yield from map(change, cases)


def _plan_items(
    cases: Sequence[TestCase], change: Change | None
) -> Iterator[TestCase | CopiedRow | CopiedRun]:
    """`_each_changed`, for a plan: rows copied from a prototype as `CopiedRow`s."""
    if isinstance(cases, Cases):
        for part in cases.parts:
            yield from _plan_items(part, change)
    elif isinstance(cases, RowCases):
        yield from cases.planned(change)
    elif isinstance(cases, Mapped) and cases.uniform:
        inner = cases.change
        outer = inner if change is None else (lambda case: change(inner(case)))
        yield from _plan_items(cases.cases, outer)
    else:
        yield from cases if change is None else map(change, cases)


class Selected(_Cases):
    """The cases of `cases` at the given positions (`select`): 8 bytes a kept case."""

    def __init__(self, cases: Sequence[TestCase], positions: array[int]) -> None:
        self.cases = cases
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    def _at(self, index: int) -> TestCase:
        return self.cases[self.positions[index]]

    def __iter__(self) -> Iterator[TestCase]:
        for position in self.positions:
            yield self.cases[position]


UNGRADED_SHOWN = 10
"""How many of a suite's ungraded cases `promptum validate` names."""


@dataclass(slots=True)
class CaseStats:
    """What `promptum validate` says of a suite's cases, tallied once as they are loaded."""

    checks: int = 0
    """The checks written (a suite's default checks in each case), as each response gets."""
    schemas: int = 0
    """Cases whose response is also graded on fitting its `response_model`: a check of the
    run's (``response_model`` or ``response_schema``), besides those written."""
    models: dict[str, None] = field(default_factory=dict)
    """Every model id the cases are answered or judged by, in order of first use; targets,
    resolved when the suite loaded, are not among them."""
    answering: dict[str, None] = field(default_factory=dict)
    """The models and targets that answer the cases (not the judges), in order of first use."""
    results: int = 0
    """Results a run of the cases makes: each case × its models (or targets) × its repeats."""
    most_repeats: int = 1
    tags: dict[str, None] = field(default_factory=dict)
    """Every tag of a case, in order of first use (`gate.must_pass_tags` must name one)."""
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)
    """Each case whose id an earlier case of the suite has: (key, variant, problem)."""
    scripted: int = 0
    """Cases that are scripted conversations (`turns:`)."""
    turns: int = 0
    """The user turns of the scripted conversations, together."""
    simulated: int = 0
    """Cases whose user a model plays (`simulate:`)."""
    ungraded: int = 0
    """Cases nothing grades (no check, field assertion or judge criterion): a run makes
    each an error."""
    ungraded_shown: dict[str, str] = field(default_factory=dict)
    """The first `UNGRADED_SHOWN` of them, where each is (``file:line``) to what to add."""
    cost_bounded: dict[str, str] = field(default_factory=dict)
    """Each model a `max_cost_usd` check bounds, to where (``file:line``) it first does: a
    model without a price fails every such bound."""

    def add(self, case: TestCase, default_model: str) -> None:
        """Count one case in (once for each of its prompt variants)."""
        self.checks += len(case.checks)
        self.schemas += _schema_graded(case)
        if not grades_something(case):
            self._add_ungraded(case)
        if case.is_conversation:
            self._add_conversation(case)
        answering = case.models or (default_model,)
        self.results += len(answering) * case.repeat
        self.most_repeats = max(self.most_repeats, case.repeat)
        for tag in case.tags:
            self.tags.setdefault(tag)
        bounded = any(check.type == "max_cost_usd" for check in case.checks)
        for model in answering:
            self.answering.setdefault(model)
            if case.target is None or model != case.target.id:
                self.models.setdefault(model)
                if bounded:
                    self.cost_bounded.setdefault(model, case.source or case.key)
        if case.judge is not None:
            self.models.setdefault(case.judge.model)

    def again(self, case: TestCase, default_model: str) -> None:
        """Count in once more a case just like one counted already (a data file's row)."""
        if case.is_conversation:
            self.add(case, default_model)
            return
        # Its models, tags and repeats are known already: only the sums grow.
        self.checks += len(case.checks)
        self.schemas += _schema_graded(case)
        self.results += (len(case.models) or 1) * case.repeat
        if not grades_something(case):  # named once, by the row it was copied from
            self.ungraded += 1

    def _add_ungraded(self, case: TestCase) -> None:
        self.ungraded += 1
        if len(self.ungraded_shown) < UNGRADED_SHOWN:
            self.ungraded_shown.setdefault(case.source or case.key, ungraded_fix(case))

    def _add_conversation(self, case: TestCase) -> None:
        # Each turn is graded as one request is: by the case's checks (its suite's default
        # checks) and its schema, besides its own. A simulated user's turns are not known
        # before the run: counted as if it used every one (its stop checks grade nothing).
        turns = len(case.turns) or (case.simulate.max_turns if case.simulate else 1)
        self.checks += len(case.checks) * (turns - 1)
        self.checks += sum(len(turn.checks) for turn in case.turns)
        self.schemas += turns * (case.response_schema is not None)
        if case.conversation is not None:
            self.checks += len(case.conversation.checks)
        if case.turns:
            self.scripted += 1
            self.turns += len(case.turns)
        if case.simulate is not None:
            self.simulated += 1
            self.models.setdefault(case.simulate.model)


def _schema_graded(case: TestCase) -> int:
    """1 when a run grades the case's response on fitting its schema, as a check."""
    # A scripted conversation's are counted by its turns (`_add_conversation`).
    return int(case.response_schema is not None and not case.is_conversation)


class SuiteCases(Cases):
    """A loaded suite's cases, with what loading them found out (`stats`)."""

    def __init__(self, parts: Iterable[Sequence[TestCase]], stats: CaseStats) -> None:
        super().__init__(parts)
        self.stats = stats
