"""What every check type shares: its result, its compiled form and its registry entry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from promptum.completion import Completion


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The outcome of one check on one response; `reason` says why it failed."""

    type: str
    passed: bool
    description: str
    reason: str | None = None


CompiledCheck = Callable[[Completion], CheckResult]
"""A check ready to run: a function of one completion."""


class ValueKind(Enum):
    """What the `value` of a check definition must be."""

    STRING = "a string"
    NUMBER = "a non-negative number"
    INTEGER = "a non-negative integer"
    NONE = "absent"


@dataclass(frozen=True, slots=True)
class CheckType:
    """A registered check type: its name, what its value must be and how to build it."""

    name: str
    passes_when: str
    value: ValueKind
    build: Callable[[Any, bool], CompiledCheck]
    """Build the check from an already validated value and the case_insensitive flag."""
    string_check: bool = False
    """Whether `case_insensitive` applies."""


def shorten(text: str, limit: int = 80) -> str:
    """Shorten text for a failure reason, keeping its start."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_check(
    type_name: str,
    description: str,
    passes: Callable[[str], bool],
    reason: str | Callable[[str], str],
) -> CompiledCheck:
    """Wrap a predicate on the response text as a check.

    A constant `reason` lets every outcome be built once, so a check allocates nothing.
    """
    passed = CheckResult(type_name, True, description)
    if isinstance(reason, str):
        failed = CheckResult(type_name, False, description, reason)

        def run_constant(completion: Completion) -> CheckResult:
            return passed if passes(completion.text) else failed

        return run_constant

    explain = reason

    def run(completion: Completion) -> CheckResult:
        if passes(completion.text):
            return passed
        return CheckResult(type_name, False, description, explain(completion.text))

    return run
