"""A data file's row as a plan reads it: its prototype case and its own id, messages, vars."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from promptum.case_result import Message
from promptum.runner._case import TestCase


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
