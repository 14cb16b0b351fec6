"""The executor seam: where a run's units are turned into results, when not in this event loop.

The runner keeps everything a run owns (the plan, recording, sinks, resume, stopping);
an executor only runs units elsewhere and hands each result back through `record`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from promptum.cases import TestCase
    from promptum.providers import ModelRequest
    from promptum.values.completion import Completion
    from promptum.values.run_result import CaseResult

ResultKey = tuple[str, str, str, int]
"""(``suite/case`` id, variant, model, repeat): what identifies one result within a run."""


class Client(Protocol):
    """What the runner needs of `promptum.providers.ModelClient`."""

    def max_concurrency(self, model: str) -> int:
        """How many calls to `model` may be in flight at once."""
        ...

    async def complete(self, request: ModelRequest) -> Completion:
        """Make one call; failures come back as `Completion.error`."""
        ...


@dataclass(frozen=True, slots=True)
class Execution:
    """A run's remaining work as the runner hands it to an executor, and where results go."""

    cases: Sequence[TestCase]
    models: Sequence[str]
    done: set[ResultKey]
    """Results the run already has (a resumed run): their units are not run again."""
    client: Client
    """The run's model client, as configured; an executor builds its own copies from it."""
    concurrency: int
    """The run's limit on calls in flight at once, wherever they run."""
    stopping: asyncio.Event
    """Set on Ctrl-C: start no new units; in-flight ones get `grace_s`, then are cancelled."""
    grace_s: float
    record: Callable[[CaseResult], None]
    """The runner's one way to record a result (scrubbed, then sent to every sink)."""
    warn: Callable[[str], None]
    """Add a warning to the run (shown after the summary)."""
    plan: Callable[[str], Iterator[tuple[TestCase, int]]]
    """The runner's lazy plan of a model (it notes each unit's place in the plan)."""
    grade_timeout_s: float | None
    """How long grading one response may take (`run_unit`'s `grade_timeout_s`; None: no limit)."""

    def units(self, model: str) -> Iterator[tuple[TestCase, int]]:
        """Lazily, every (case, repeat) still to run on `model`, in suite order."""
        return self.plan(model)


class Executor(Protocol):
    """Runs a run's units somewhere else, e.g. on Ray actors (`promptum.executors`)."""

    async def execute(self, execution: Execution) -> None:
        """Run every unit not done, passing each result to `execution.record` as it arrives."""
        ...
