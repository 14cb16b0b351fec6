"""The `expr` check type: a sandboxed Jinja expression over the response, true or a score.

`{type: expr, value: "output | length < 500"}` is data, not code: the expression runs in
promptum's template sandbox with its budget (docs/expressions.md). It reads the case's
`vars`, so it is graded with the whole `CheckInput`, like the checks a user writes.
"""

from __future__ import annotations

import math
from typing import Any

from promptum.checks._base import CompiledCheck, ScoredCheckType, ValueKind, shorten
from promptum.checks._custom import CheckInput, CustomCheck
from promptum.checks._response_expression import expression, variables
from promptum.templating import Expression, TemplateError
from promptum.values.grade import Grade

_REASON_LIMIT = 300
_RETURNS = "an expr check gives true/false or a score from 0 to 1"


def _unused(_check: CheckInput) -> None:
    return None  # ExprCheck grades itself; CustomCheck wants a function


class ExprCheck(CustomCheck):
    """A compiled `expr` check: graded with the response's `CheckInput`, kind ``check``."""

    __slots__ = ("expression",)

    def __init__(self, compiled: Expression, threshold: float) -> None:
        source = compiled.source
        super().__init__(
            _unused,
            label=f"expr `{shorten(source, 120)}`",
            name="expr",
            description=f"`{shorten(source, 120)}`",
            threshold=threshold,
        )
        self.expression = compiled
        self._passed = Grade("check", "expr", True, None, None, self.description)
        # The reason names the expression: a case's several `expr` checks all show as `expr`.
        failed = f"{self.description} was false"
        self._failed = Grade("check", "expr", False, None, failed, self.description)

    def grade(self, check: CheckInput) -> Grade:
        """The grade of one response: the expression's value, or an error grade naming it."""
        try:
            value = self.expression.evaluate(variables(check, self.expression.names_read))
        except TemplateError as exc:
            return self.error(f"failed: {exc}")
        return self.judge(value)

    def judge(self, outcome: object) -> Grade:
        """True/false passes/fails; a number 0-1 is a score; anything else is an error."""
        if isinstance(outcome, bool):
            return self._passed if outcome else self._failed
        if isinstance(outcome, int | float) and math.isfinite(outcome) and 0 <= outcome <= 1:
            passed = outcome >= self.threshold
            sign = "≥" if passed else "<"
            return Grade(
                "check", "expr", passed, float(outcome),
                f"score {outcome:g} {sign} {self.threshold:g}", self.description,
                details={"threshold": self.threshold},
            )  # fmt: skip
        return self.error(f"gave {_shown(outcome)}; {_RETURNS}")

    def error(self, what: str) -> Grade:
        """The error grade when the expression could not grade this response."""
        return Grade(
            "check", "expr", False, None, None, self.description,
            shorten(f"{self.label} {what}", _REASON_LIMIT),
        )  # fmt: skip


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {shorten(repr(value), 80)}"


def _build(value: Any, threshold: float, _model: str | None) -> CompiledCheck:
    try:
        return ExprCheck(expression(value), threshold)
    except ValueError as exc:
        raise ValueError(f"check 'expr': {exc}") from exc


EXPR = ScoredCheckType(
    "expr",
    "the Jinja expression is true, or its score (0-1) reaches the threshold",
    ValueKind.STRING,
    lambda value, _case_insensitive: _build(value, 0.5, None),
    default_threshold=0.5,
    build_scored=_build,
)
