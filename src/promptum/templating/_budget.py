"""The budget of one rendering or evaluation: the text it builds and writes, its steps, its time.

No template can run for hours or allocate gigabytes (`{{ 'x' * 10**9 }}`): what each one
builds, writes and runs is charged here, and refused past the limits below.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar, Token
from typing import Any

from promptum.templating._errors import security_error

MAX_TEMPLATE_SIZE = 10_000_000
"""Characters (and list items) one rendering may build, and may write: ~2.5M tokens, more
than any model's context."""

MAX_TEMPLATE_STEPS = 1_000_000
"""Loop iterations, calls, filters and tests one rendering may run: a second or so of work."""

MAX_TEMPLATE_SECONDS = 10.0
"""A backstop: a step past this refuses, however few steps (each may scan a long value)."""


class Budget:
    """What is left of one rendering's allowance of built values, output and steps."""

    def __init__(self) -> None:
        self.size = MAX_TEMPLATE_SIZE
        self.output = MAX_TEMPLATE_SIZE
        self.steps = MAX_TEMPLATE_STEPS
        self.deadline = time.monotonic() + MAX_TEMPLATE_SECONDS

    def spend(self, size: int) -> None:
        """Charge a value of `size` just built; refuse once the allowance is spent."""
        self.size -= size
        if self.size < 0:
            raise security_error(
                f"templates cannot build more than {MAX_TEMPLATE_SIZE:,} characters (text "
                "and list items, counting intermediate values); this one builds more"
            )

    def afford(self, size: int) -> None:
        """Refuse before building a value of `size` the budget cannot pay for."""
        if size > self.size:
            self.spend(size)

    def write(self, value: Any) -> Any:
        """Count what `{{ ... }}` writes; its values were counted as they were built."""
        self.output -= size(value, self.output)
        if self.output < 0:
            raise security_error(
                f"templates cannot write more than {MAX_TEMPLATE_SIZE:,} characters; this "
                "one writes more"
            )
        return value

    def step(self) -> None:
        """Count one loop iteration, call, filter or test; refuse past the steps or the time."""
        self.steps -= 1
        if self.steps < 0:
            raise security_error(
                f"templates cannot make more than {MAX_TEMPLATE_STEPS:,} loop iterations, "
                "calls, filters and tests; simplify the loops"
            )
        self.in_time()

    def in_time(self) -> None:
        """Refuse past the time; a filter's own loop checks it, being one step however long."""
        if time.monotonic() > self.deadline:
            raise security_error(
                f"templates cannot take more than {MAX_TEMPLATE_SECONDS:g} seconds; simplify "
                "the loops"
            )


_under_way: ContextVar[Budget] = ContextVar("promptum_template_budget")


class FreshBudget:
    """A `with` block whose rendering or evaluation has a budget of its own."""

    __slots__ = ("_token",)

    _token: Token[Budget]

    def __enter__(self) -> None:
        self._token = _under_way.set(Budget())

    def __exit__(self, *_exc_info: object) -> None:
        _under_way.reset(self._token)


def current() -> Budget:
    """The budget of the rendering under way."""
    # Outside `FreshBudget` (Jinja folding a constant expression) each check gets a fresh budget.
    return _under_way.get(None) or Budget()


def size(value: Any, limit: int) -> int:
    """Characters plus items in `value`, following nested lists and mappings; stops past limit.

    Shared references count each time, as `str()` of the value would write them out.
    """
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str | bytes | bytearray | range):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item)
            if total <= limit:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            total += len(item)
            if total <= limit:
                stack.extend(item)
        else:
            total += 1
    return total


def spend_on(value: Any) -> Any:
    """`value`, charged to the budget as built."""
    budget = current()
    budget.spend(size(value, budget.size))
    return value


def gather(values: Iterable[Any], separator: str = "") -> list[Any]:
    """`values` as a list, refused as soon as joining them would exceed the budget."""
    budget = current()
    items: list[Any] = []
    total = 0
    for item in values:
        budget.step()
        total += size(item, budget.size) + len(separator)
        budget.afford(total)
        items.append(item)
    return items


def counted(values: Iterable[Any]) -> Iterator[Any]:
    """`values`, each one a step of the budget (a loop's iterations)."""
    budget = current()
    for item in values:
        budget.step()
        yield item
