"""Run check definitions against a completion."""

from __future__ import annotations

from collections.abc import Iterable

from promptum.checks._base import CheckResult
from promptum.checks._definition import CheckDefinition
from promptum.completion import Completion


def evaluate_checks(
    definitions: Iterable[CheckDefinition], completion: Completion
) -> list[CheckResult]:
    """Run every check on `completion` in declaration order; a check that raises fails."""
    if not isinstance(definitions, list | tuple):
        definitions = list(definitions)
    try:
        # The common case, kept tight: no check raises.
        return [definition.compiled(completion) for definition in definitions]
    except Exception:
        pass  # some check raised: run them one by one below to record which, and why
    results: list[CheckResult] = []
    for definition in definitions:
        try:
            results.append(definition.compiled(completion))
        except Exception as exc:
            results.append(
                CheckResult(
                    definition.type,
                    False,
                    f"{definition.type} check",
                    f"check raised {type(exc).__name__}: {exc}",
                )
            )
    return results
