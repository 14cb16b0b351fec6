"""Load-time problems of a case's expressions: the `vars` they read that it does not define."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from promptum.checks import CheckDefinition, case_transform, expressions_of
from promptum.foundations.suggestions import did_you_mean
from promptum.suites._locate import Loc
from promptum.templating import Expression


def expression_problems(
    checks: Iterable[tuple[Loc, CheckDefinition]],
    transform: tuple[Loc, str] | None,
    variables: Mapping[str, Any],
) -> list[tuple[Loc, str]]:
    """Each `vars.name` read by an `expr` check or a transform that the case does not define."""
    problems: list[tuple[Loc, str]] = []

    def undefined(loc: Loc, expression: Expression) -> None:
        for name in sorted(expression.vars_read.difference(variables)):
            hint = did_you_mean(name, {known: f"vars.{known}" for known in variables})
            defined = ", ".join(sorted(variables)) or "none"
            problems.append(
                (
                    loc,
                    f"`vars.{name}` is not defined for this case.{hint} Define it under "
                    f"`vars` (defined here: {defined})",
                )
            )

    for loc, check in checks:
        for key, expression in expressions_of(check.compiled):
            undefined((*loc, key), expression)
    if transform is not None:
        undefined(transform[0], case_transform(transform[1]))
    return problems
