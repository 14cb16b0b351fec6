"""The case store: sequences of cases that are not all held, as loading writes them.

A suite's cases are held as what they change of a prototype (`HeldCases`), a data file's
rows as their offsets (the suites' `RowCases`), parts joined (`Cases`), or views over
others (`Mapped`, `Selected`: `Session.select` and `override` keep a view over the cases
instead of a changed copy of each). A run reads them as cases; its plan reads them through
`planned`, where rows copied from a prototype stand for their cases without being made.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload

from promptum.cases._case import TestCase
from promptum.cases._store_rows import PlanItem

Change = Callable[[TestCase], TestCase]
"""A change made to each case as it is read (a run's overrides)."""


class CaseStore(Sequence[TestCase]):
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

    def planned(self, change: Change | None = None) -> Iterator[PlanItem]:
        """Every case changed by `change`, as a plan reads it (rows copied: not made)."""
        return _applied(self, change)

    def each_changed(self, change: Change) -> Iterator[TestCase]:
        """Every case changed by `change`, which changes every case alike (see `Mapped`)."""
        return map(change, self)

    def __eq__(self, other: object) -> bool:
        # Equal to a list, tuple or view holding the same cases, as a list of them would be.
        if not isinstance(other, list | tuple | CaseStore):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self)} cases>"


class Cases(CaseStore):
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

    def planned(self, change: Change | None = None) -> Iterator[PlanItem]:
        return _planned(self, change)

    def each_changed(self, change: Change) -> Iterator[TestCase]:
        return _each_changed(self, change)


class Mapped(CaseStore):
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

    def planned(self, change: Change | None = None) -> Iterator[PlanItem]:
        return _planned(self, change) if self.uniform else _applied(self, change)

    def each_changed(self, change: Change) -> Iterator[TestCase]:
        return _each_changed(self, change) if self.uniform else map(change, self)


class Selected(CaseStore):
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


def _leaves(
    cases: Sequence[TestCase], change: Change | None
) -> Iterator[tuple[Sequence[TestCase], Change | None]]:
    """The sequences `cases` is made of, in order, each with the uniform change it gets.

    Parts are joined and uniform changes composed (a `Mapped`'s first), so that a data
    file's rows are reached as themselves and read their own way.
    """
    if isinstance(cases, Cases):
        for part in cases.parts:
            yield from _leaves(part, change)
    elif isinstance(cases, Mapped) and cases.uniform:
        inner = cases.change
        yield from _leaves(cases.cases, inner if change is None else _then(inner, change))
    else:
        yield cases, change


def _then(first: Change, then: Change) -> Change:
    """`first`, then `then`."""
    return lambda case: then(first(case))


def _applied(cases: Sequence[TestCase], change: Change | None) -> Iterator[TestCase]:
    """`cases`, each changed by `change` if given."""
    return iter(cases) if change is None else map(change, cases)


def _planned(cases: Sequence[TestCase], change: Change | None) -> Iterator[PlanItem]:
    """`CaseStore.planned` of parts and uniform views: each sequence read its own way."""
    for leaf, leaf_change in _leaves(cases, change):
        if isinstance(leaf, CaseStore):
            yield from leaf.planned(leaf_change)
        else:
            yield from _applied(leaf, leaf_change)


def _each_changed(cases: Sequence[TestCase], change: Change) -> Iterator[TestCase]:
    """`CaseStore.each_changed` of parts and uniform views: each sequence read its own way."""
    for leaf, leaf_change in _leaves(cases, change):
        if isinstance(leaf, CaseStore) and leaf_change is not None:
            yield from leaf.each_changed(leaf_change)
        else:  # a list or tuple (`leaf_change` is never None: `_leaves` composes a change)
            yield from _applied(leaf, leaf_change)
