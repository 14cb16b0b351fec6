"""Cases held as a prototype plus their own fields: a data file's rows, a suite's written cases.

A row's own fields are the case's `PER_ROW` ones (`promptum.cases._roles`); every other
field is its prototype's, but for the checks whose value each row gives (`RowCheck`).
A row carries them in its own forms (messages as texts, its source told only when asked),
so a field given that role must be carried here too: importing this module refuses a
`TestCase` whose `PER_ROW` fields are not the ones a row carries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from json.encoder import encode_basestring_ascii
from typing import Any, Literal

from promptum.cases._case import TestCase
from promptum.cases._grading import Grading
from promptum.cases._hashed import as_json, messages_text
from promptum.cases._roles import role_table
from promptum.checks import CheckDefinition
from promptum.values.case_result import Message

ROW_FIELDS = ("id", "messages", "source", "vars")
"""The fields a copied row carries itself, in the case's order."""

if role_table(TestCase).per_row != ROW_FIELDS:
    raise TypeError(
        f"TestCase's PER_ROW fields are {role_table(TestCase).per_row}, a copied row carries "
        f"{ROW_FIELDS}: carry the new field in CopiedRow and Prototype.copy, or drop its role"
    )

Texts = Sequence[tuple[Literal["system", "user"], str]]
"""Plain messages, each as (role, text)."""

_PLAIN = frozenset({"role", "content"})
"""The fields a plain message was given: made again from its role and text, it is equal."""


def messages_of(texts: Iterable[tuple[Any, str]]) -> tuple[Message, ...]:
    """The messages of `texts`, each (role, text)."""
    return tuple(Message(role=role, content=text) for role, text in texts)


def plain_texts(messages: Iterable[Message]) -> tuple[tuple[Any, str], ...] | None:
    """The (role, text) of each of `messages` when every one is plain (`messages_of` again)."""
    pairs = []
    for message in messages:
        plain = type(message) is Message and message.__pydantic_fields_set__ == _PLAIN
        if not plain or message.tool_calls is not None or message.tool_call_id is not None:
            return None
        pairs.append((message.role, message.content))
    return tuple(pairs)


@dataclass(frozen=True, slots=True)
class RowCheck:
    """A check of a prototype whose value each row gives: a template of its vars, or a cell."""

    index: int
    """Where it is among the case's checks."""
    value: str
    """Its value in the prototype: a row giving the same value has the prototype's check."""
    valid: Callable[[str], bool]
    """Whether a row's value makes a valid check, told without making it; False: make it to
    find out."""
    made: Callable[[str], CheckDefinition | None]
    """The check with a row's value; None: the value makes no valid check."""

    def fits(self, value: str) -> bool:
        """Whether a row's `value` makes a valid check (the full build would take it)."""
        # The prototype's own value made the prototype's check: no need to make it again.
        return value == self.value or self.valid(value) or self.made(value) is not None


class Prototype:
    """A case whose copies differ in a few fields: its field values in order, copied per case.

    A copy is made from the values as positional arguments, faster than `replace`. Each of
    its `row_checks` has the value a copy gives it; its other checks are shared.
    """

    __slots__ = ("_at_grading", "_kind", "case", "own", "row_checks", "values")

    def __init__(self, case: TestCase, row_checks: tuple[RowCheck, ...] = ()) -> None:
        self.case = case
        self._kind = type(case)
        names = role_table(self._kind).names
        self.values: tuple[Any, ...] = tuple(getattr(case, name) for name in names)
        """The prototype's fields, in the order of its class's."""
        self.own = tuple(names.index(name) for name in ROW_FIELDS)
        """Where a row's own fields (`ROW_FIELDS`) are among `values`."""
        self.row_checks = row_checks
        self._at_grading = names.index("grading")

    def copy(
        self,
        case_id: str,
        texts: Texts,
        variables: dict[str, Any],
        source: str,
        checks: Sequence[str] = (),
    ) -> TestCase:
        """The case of a row: the prototype but for its own fields and its checks' values.

        `checks` are the values of its `row_checks`, in their order. Raise ValueError if one
        makes no valid check (the file changed since it was loaded).
        """
        values = list(self.values)
        at_id, at_messages, at_source, at_vars = self.own  # the order of `ROW_FIELDS`
        values[at_id], values[at_messages] = case_id, messages_of(texts)
        values[at_source], values[at_vars] = source, variables
        if self.row_checks:
            values[self._at_grading] = self._grading(checks)
        return self._kind(*values)

    def _grading(self, values: Sequence[str]) -> Grading:
        """The prototype's grading with its row checks made with `values`."""
        grading: Grading = self.case.grading
        checks = list(grading.checks)
        changed = False
        for check, value in zip(self.row_checks, values, strict=True):
            if value == check.value:
                continue  # the prototype's check, as the same value makes it
            made = check.made(value)
            if made is None:
                raise ValueError(f"{value!r} makes no valid check {check.index + 1}")
            checks[check.index], changed = made, True
        return replace(grading, checks=tuple(checks)) if changed else grading


@dataclass(frozen=True, slots=True)
class CopiedRow:
    """A case as a plan reads it, not made: a data file's row copied from its prototype.

    It is the prototype's case but for its own id, messages and vars.
    """

    prototype: Prototype
    id: str
    texts: Texts
    """Its messages, as (role, content): plain messages, each a role and a text."""
    vars: dict[str, Any]
    source: Callable[[], str]
    """Its `source`, told only when the case is made (rarely, for a plan)."""

    @property
    def base(self) -> TestCase:
        """The case it is copied from: it has every setting the row does not set itself."""
        return self.prototype.case

    def case(self) -> TestCase:
        """The case itself, as the run makes it."""
        return self.prototype.copy(self.id, self.texts, self.vars, self.source())

    def hashed_text(self, name: str) -> str:
        """The fingerprint's JSON of its own field `name` (as the case's `Hashed` writes it)."""
        if name == "id":
            return encode_basestring_ascii(self.id)
        if name == "messages":
            return messages_text(self.texts)
        if name == "vars":
            return as_json(self.vars)
        raise ValueError(f"a copied row's {name!r} is not hashed")


RUN_KEYS = ("id", "messages")
"""The hashed fields of a row that `own_text` writes, in the order of their keys."""


def own_text(case_id: str, texts: Texts) -> str:
    """A copied row's own part of the fingerprint: its id's JSON, a tab, its messages' JSON.

    JSON escapes every tab and newline in its strings, so the tab and a line's end are
    never part of either.
    """
    encode = encode_basestring_ascii
    # The usual rows, a prompt alone or after a system message: written directly (a row's cost).
    if len(texts) == 1:
        role, text = texts[0]
        return f'{encode(case_id)}\t[{{"content": {encode(text)}, "role": {encode(role)}}}]'
    if len(texts) == 2:
        (role, text), (second_role, second) = texts
        first = f'{{"content": {encode(text)}, "role": {encode(role)}}}'
        then = f'{{"content": {encode(second)}, "role": {encode(second_role)}}}'
        return f"{encode(case_id)}\t[{first}, {then}]"
    return f"{encode(case_id)}\t{messages_text(texts)}"


@dataclass(frozen=True, slots=True)
class CopiedRun:
    """Consecutive rows of a data file, each `base` (the prototype) but for its id, messages.

    Their vars are not in `text`: a plan whose fingerprint hashes vars reads the rows.
    """

    base: TestCase
    count: int
    text: str
    """`own_text` of each row, a line each (every line ends with a newline)."""
    rows: Callable[[], Iterator[TestCase | CopiedRow]]
    """The same rows read from the file, as a plan reads them without their texts."""


PlanItem = TestCase | CopiedRow | CopiedRun
"""A case as a plan reads it: made, or rows copied from a prototype standing for theirs."""
