"""A suite's written cases held compactly: each as what it changes of the first, made when read.

Cases written inline in a YAML suite (or in TOML and YAML case files) are built once, when
the suite loads, every problem located then. Held whole, each took about 2 KB: its
`TestCase`, its messages (pydantic models), its generation parameters and vars, each a
fresh object although most are equal in every case. Held here, a case is the first case's
fields with its own put back: only the fields that differ (its id, checks, source...), the
plain messages as their texts and the source as its line. Reading a case makes a `TestCase`
equal to the one built, from those same field values.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import fields, replace
from itertools import compress
from operator import attrgetter, is_, is_not
from typing import Any

from promptum.cases._case import TestCase
from promptum.cases._grading import Grading
from promptum.cases._parts import GenerationParams
from promptum.cases._store import CaseStore
from promptum.cases._store_rows import messages_of, plain_texts
from promptum.values.case_result import Message

_NAMES = tuple(field.name for field in fields(TestCase))
_values: Any = attrgetter(*_NAMES)  # every field, in order, read in C
_INDEXES = range(len(_NAMES))
_ID = _NAMES.index("id")
_GRADING = _NAMES.index("grading")
_MESSAGES = _NAMES.index("messages")
_SOURCE = _NAMES.index("source")

_TEXT = -1
"""The messages are one plain user message: its text is held."""
_PAIRS = -2
"""The messages are all plain (role and text only): their (role, text) pairs are held."""
_CHECKS = -3
"""The grading is the first case's but for its checks (a check's own value): they are held."""
_LINES = 2**32
"""Lines below this are held in 4 bytes (`HeldCases._lines`); a source further down is text."""


class HeldCases(CaseStore):
    """Cases held as what each changes of the first (see the module), in the order added."""

    def __init__(self, cases: Iterable[TestCase] = ()) -> None:
        self._first: tuple[Any, ...] = ()
        self._prefix = ""
        """The first case's source up to its line (``file:``)."""
        self._records: list[tuple[Any, ...]] = []
        """Each case: the codes of what it holds (shared by cases alike), then its values."""
        self._lines = array("I")
        """Each case's line in the first case's file; 0: its source is the first's, or held."""
        self._layouts: dict[tuple[int, ...], tuple[int, ...]] = {}
        for case in cases:
            self.add(case)

    def add(self, case: TestCase) -> None:
        """Hold `case`, after the cases already held."""
        values: tuple[Any, ...] = _values(case)
        if not self._records:
            self._first = values
            source = values[_SOURCE]
            self._prefix = source.rpartition(":")[0] + ":" if source else ""
        first = self._first
        codes: list[int] = []
        held: list[Any] = []
        line = 0
        for index in compress(_INDEXES, map(is_not, values, first)):
            value = values[index]
            code = index
            if index == _MESSAGES:
                code, value = _messages(value)  # rarely the first's: not compared
            elif index == _SOURCE:
                if line := self._line(value):
                    continue
            elif index == _GRADING:
                if _same_but_checks(value, first[index]):
                    if _same_checks(value, first[index]):
                        continue  # the first case's grading serves
                    code, value = _CHECKS, value.checks
            elif index != _ID and _same(value, first[index]):
                continue  # the first case's equal value serves
            codes.append(code)
            held.append(value)
        layout = tuple(codes)
        self._records.append((self._layouts.setdefault(layout, layout), *held))
        self._lines.append(line)

    def _line(self, source: Any) -> int:
        """The line of `source` when it is ``file:line`` in the first case's file, else 0."""
        prefix = self._prefix
        if type(source) is str and prefix and source.startswith(prefix):
            line = source[len(prefix) :]
            if line.isdigit() and line[0] != "0" and int(line) < _LINES:  # `str(int(line))`
                return int(line)
        return 0

    def __len__(self) -> int:
        return len(self._records)

    def _at(self, index: int) -> TestCase:
        return self._made(self._records[index], self._lines[index])

    def __iter__(self) -> Iterator[TestCase]:
        return map(self._made, self._records, self._lines)

    def _made(self, record: tuple[Any, ...], line: int) -> TestCase:
        values = list(self._first)
        if line:
            values[_SOURCE] = f"{self._prefix}{line}"
        layout = record[0]
        for position, code in enumerate(layout, 1):
            value = record[position]
            if code >= 0:
                values[code] = value
            elif code == _CHECKS:
                values[_GRADING] = replace(values[_GRADING], checks=value)
            elif code == _TEXT:
                values[_MESSAGES] = (Message(role="user", content=value),)
            else:
                values[_MESSAGES] = messages_of(value)
        return TestCase(*values)


def _messages(messages: Any) -> tuple[int, Any]:
    """The code and value that hold `messages`: their texts when every one is plain."""
    pairs = plain_texts(messages)
    if pairs is None:
        return _MESSAGES, messages
    if len(pairs) == 1 and pairs[0][0] == "user":
        return _TEXT, pairs[0][1]
    return _PAIRS, pairs


def _same(value: Any, other: Any) -> bool:
    """Whether `value` may be replaced by `other`: equal, and of the same types throughout.

    Plain `==` is not enough: 1 == 1.0 == True, yet a fingerprint or a report tells them
    apart. Values of other types count as the same only when they are the same object.
    """
    if value is other:
        return True
    kind = type(value)
    if kind is not type(other) or kind not in _COMPARED or value != other:
        return False
    if kind is tuple or kind is list:
        return all(map(_same_inside, value, other))
    if kind is dict:
        return _same_dict(value, other)
    if kind is GenerationParams:
        return all(map(_same, _params(value), _params(other)))
    return True  # equal texts and numbers of one type


def _same_checks(value: Grading, other: Grading) -> bool:
    """Whether two gradings have the same check definitions: shared, as identical checks are."""
    checks, others = value.checks, other.checks
    return len(checks) == len(others) and all(map(is_, checks, others))


def _same_but_checks(value: Grading, other: Grading) -> bool:
    """Whether `value` may be replaced by `other` with its own checks: every other field `_same`."""
    return all(map(_same, _grading(value), _grading(other)))


def _same_dict(value: dict[Any, Any], other: dict[Any, Any]) -> bool:
    """`_same` of two equal dicts: their keys in the same order, as text, and values alike."""
    keys_alike = all(
        key is other_key or (type(key) is str and key == other_key)
        for key, other_key in zip(value, other, strict=True)
    )
    return keys_alike and all(map(_same_inside, value.values(), other.values()))


def _same_inside(value: Any, other: Any) -> bool:
    """`_same`, for a value inside a field: a list or dict there is the same only as itself.

    A field's own mapping reaches user code copied (a target's `vars`) or read-only (a
    check's), but the lists and dicts inside it as they are: one case's target appending
    to its list must not change another case's.
    """
    return value is other or (type(value) not in _MUTABLE and _same(value, other))


_params: Any = attrgetter(*(field.name for field in fields(GenerationParams)))
_grading: Any = attrgetter(*(field.name for field in fields(Grading) if field.name != "checks"))
_COMPARED = frozenset({str, int, float, bool, tuple, list, dict, GenerationParams})
"""The types whose equal values are compared; any other value is the same only as itself."""
_MUTABLE = frozenset({list, dict})
