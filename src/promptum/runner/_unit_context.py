"""`UnitContext`: what a run lends each unit besides its case, and the journal it keeps turns in.

`run_unit` builds one from its arguments, `Runner` from the run's settings and sinks; a
single response and a conversation read the same context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from promptum.runner._executor import ResultKey
from promptum.runner._grade import DEFAULT_GRADE_TIMEOUT_S
from promptum.runner._turn_lines import TurnCall


@runtime_checkable
class TurnLog(Protocol):
    """Where a conversation's finished turns are kept for a resume (the run's journal)."""

    def earlier_calls(self, unit: ResultKey) -> list[TurnCall]:
        """The calls of the turns of `unit` an interrupted run finished, in order."""
        ...

    def add_turn(self, unit: ResultKey, number: int, calls: list[TurnCall]) -> None:
        """Keep one finished turn of `unit`: every call it made."""
        ...


@dataclass(frozen=True, slots=True)
class UnitContext:
    """The run's side of one unit: secrets to replace, grading's time limit, resume hooks."""

    secrets: tuple[str, ...] = ()
    """Replaced in every response before it is graded."""
    grade_timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S
    """How long grading may run (`grade_async`)."""
    on_abandon: Callable[[], None] | None = None
    """Hears of a grading thread left running past `grade_timeout_s`."""
    log: TurnLog | None = None
    """Keeps a conversation's finished turns, and gives back those an interrupted run finished."""
    run_id: str | None = None
    """Makes a conversation's id (`conversation_id`); None for a unit run on its own."""
    on_restart: Callable[[], None] | None = None
    """Hears of a conversation run again from turn 1: its target keeps the history itself."""
