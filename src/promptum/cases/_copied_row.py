"""A data file's row as a plan reads it: its prototype case and its own id, messages, vars.

A row's own fields are the case's `PER_ROW` ones (`promptum.cases._roles`); every other
field is its prototype's. A row carries them in its own forms (messages as texts, its source
told only when asked), so a field given that role must be carried here too: importing this
module refuses a `TestCase` whose `PER_ROW` fields are not the ones a row carries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from json.encoder import encode_basestring_ascii
from typing import Any, Literal

from promptum.cases._case import TestCase
from promptum.cases._hashed import as_json, messages_text
from promptum.cases._roles import role_table
from promptum.values.case_result import Message

ROW_FIELDS = ("id", "messages", "source", "vars")
"""The fields a copied row carries itself, in the case's order."""

if role_table(TestCase).per_row != ROW_FIELDS:
    raise TypeError(
        f"TestCase's PER_ROW fields are {role_table(TestCase).per_row}, a copied row carries "
        f"{ROW_FIELDS}: carry the new field in CopiedRow and RowPrototype, or drop its role"
    )


@dataclass(frozen=True, slots=True)
class CopiedRow:
    """A case as a plan reads it, not made: a data file's row copied from its prototype.

    It is `base` (the prototype) but for its own id, messages and vars.
    """

    base: TestCase
    id: str
    texts: list[tuple[Literal["system", "user"], str]]
    """Its messages, as (role, content): plain messages, each a role and a text."""
    vars: dict[str, Any]
    source: Callable[[], str]
    """Its `source`, told only when the case is made (rarely, for a plan)."""

    def case(self) -> TestCase:
        """The case itself, as the run makes it."""
        messages = tuple(Message(role=role, content=text) for role, text in self.texts)
        source = self.source()
        return replace(self.base, id=self.id, messages=messages, vars=self.vars, source=source)

    def hashed_text(self, name: str) -> str:
        """The fingerprint's JSON of its own field `name` (as the case's `Hashed` writes it)."""
        if name == "id":
            return encode_basestring_ascii(self.id)
        if name == "messages":
            return messages_text(self.texts)
        if name == "vars":
            return as_json(self.vars)
        raise ValueError(f"a copied row's {name!r} is not hashed")
