"""Transforms: an expression whose value replaces the response the checks see.

A case's (or the suite's default) transform is applied by the runner before all of the
case's checks and field assertions; a check's own `transform:` wraps that check, on top.
Every grade that saw a transformed response records it as ``details["transformed"]``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable
from typing import Annotated, Any

from pydantic import AfterValidator

from promptum.checks._base import CompiledCheck, shorten
from promptum.checks._custom import CheckInput, CustomCheck
from promptum.checks._expr_check import ExprCheck
from promptum.checks._response_expression import expression, variables
from promptum.templating import Expression, TemplateError
from promptum.values.grade import Grade

SEEN = "transformed"
"""The detail of a grade holding the text its check saw, when a transform changed it."""

_REASON_LIMIT = 300


def transformed(compiled: Expression, check: CheckInput) -> CheckInput:
    """`check` with the transform's value as the response; raise TemplateError if it fails.

    Text replaces the text (the structured output stays); a mapping or list replaces the
    structured output, and its JSON the text; any other value becomes its JSON as text.
    """
    value = compiled.evaluate(variables(check, compiled.names_read))
    output = check.output
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
        if isinstance(value, dict | list):
            output = value
    update: dict[str, Any] = {"text": text}
    if isinstance(output, dict) and output is not check.output:
        update["output"] = output  # what field assertions read
    completion = check.completion.model_copy(update=update)
    return dataclasses.replace(check, text=text, output=output, completion=completion)


def transform_error(compiled: Expression, problem: TemplateError) -> str:
    """What a grade that needed a failed transform says."""
    return shorten(f"transform `{shorten(compiled.source, 120)}` failed: {problem}", _REASON_LIMIT)


def seen(grade: Grade, text: str | None) -> Grade:
    """`grade` recording the transformed text its check saw (a check's own transform wins).

    None: the transform left the text as it was, so there is nothing to record.
    """
    if text is None or SEEN in grade.details:
        return grade
    return dataclasses.replace(grade, details={**grade.details, SEEN: text})


async def seen_later(outcome: Awaitable[Grade], text: str | None) -> Grade:
    """`seen` of an async check's grade, once it is there."""
    return seen(await outcome, text)


def _unused(_check: CheckInput) -> None:
    return None  # TransformedCheck grades itself; CustomCheck wants a function


class TransformedCheck(CustomCheck):
    """A check with its own `transform:`: graded with the whole `CheckInput`, as `vars` need."""

    __slots__ = ("inner", "transform")

    def __init__(self, inner: CompiledCheck, compiled: Expression, name: str) -> None:
        super().__init__(
            _unused,
            label=f"transform `{shorten(compiled.source, 120)}`",
            name=name,
            description=f"{name} check",
        )
        self.inner = inner
        self.transform = compiled

    def grade(self, check: CheckInput) -> Grade | Awaitable[Grade]:
        """The inner check's grade of the transformed response, recording what it saw."""
        try:
            after = transformed(self.transform, check)
        except TemplateError as exc:
            return self._failed_transform(exc)
        shown = None if after.text == check.text else after.text
        if isinstance(self.inner, CustomCheck):
            outcome = self.inner.grade(after)
            if not isinstance(outcome, Grade):
                return seen_later(outcome, shown)
            return seen(outcome, shown)
        return seen(self.inner(after.completion), shown)

    def _failed_transform(self, problem: TemplateError) -> Grade:
        error = transform_error(self.transform, problem)
        if isinstance(self.inner, CustomCheck):
            grade = self.inner.error("was not run")
            return dataclasses.replace(grade, error=error)
        return Grade("check", self.name, False, None, None, self.description, error)

    def error(self, what: str) -> Grade:
        """The error grade when grading did not finish (the runner's deadline)."""
        if isinstance(self.inner, CustomCheck):
            return self.inner.error(what)
        return Grade(
            "check", self.name, False, None, None, self.description,
            shorten(f"{self.name} check {what}", _REASON_LIMIT),
        )  # fmt: skip


def with_transform(check: CompiledCheck, source: str, name: str) -> CompiledCheck:
    """`check` seeing the value of transform `source`; ValueError if it does not compile."""
    return TransformedCheck(check, case_transform(source), name)


def case_transform(source: str) -> Expression:
    """A transform compiled (once per distinct source); ValueError saying what to fix."""
    try:
        return expression(source)
    except ValueError as exc:
        raise ValueError(str(exc)) from exc


def checked_transform(source: str) -> str:
    """`source` if it compiles as a transform; else ValueError saying what to fix."""
    case_transform(source)
    return source


Transform = Annotated[str, AfterValidator(checked_transform)]
"""A suite's `transform:` key: a Jinja expression, compiled when the suite loads."""


def expressions_of(check: CompiledCheck) -> list[tuple[str, Expression]]:
    """The expressions a compiled check evaluates, each with the key it is written under."""
    found: list[tuple[str, Expression]] = []
    if isinstance(check, TransformedCheck):
        found.append(("transform", check.transform))
        check = check.inner
    if isinstance(check, ExprCheck):
        found.append(("value", check.expression))
    return found
