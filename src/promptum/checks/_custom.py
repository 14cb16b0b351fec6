"""Checks the user writes: a function of the response whose answer becomes a grade.

A check function receives one `CheckInput` (and, for a registered type that takes one, the
definition's ``value``) and returns a bool, a score from 0 to 1 (passing at or above the
threshold), a ``(passed, reason)`` pair or a `Grade`; it may be async. Whatever it raises or
returns that is none of those (``SystemExit`` too; only Ctrl-C stops the run) becomes an
error grade naming the function, never a crash.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeGuard

from promptum.checks._base import CheckType, CompiledCheck, ScoredCheckType, ValueKind, shorten
from promptum.foundations.entry_points import call_problem
from promptum.values.completion import Completion
from promptum.values.documented_views import CheckResult
from promptum.values.grade import Grade

DEFAULT_THRESHOLD = 0.5
"""The least passing score of a check function that returns one: the middle of 0-1."""
_REASON_LIMIT = 300
_RETURNS = "a check returns a bool, a score from 0 to 1, a (passed, reason) pair or a Grade"
_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class CheckInput:
    """What a check function receives: one response, its call's figures and its case."""

    text: str
    """The response text."""
    output: Any
    """The structured output: an instance of the case's pydantic ``response_model`` when it
    parsed into it, else the parsed JSON; None when the case asks for none or it did not fit."""
    completion: Completion
    """The whole call: ``latency_ms``, ``input_tokens``, ``output_tokens``, ``cost_usd``..."""
    vars: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """The case's template variables (read-only)."""
    case_id: str = ""
    model: str = ""
    """The model id that answered, as the run names it (``local/smollm2``)."""
    repeat: int = 0
    """Which repeat of the case this response is, from 0."""
    tags: tuple[str, ...] = ()

    @classmethod
    def of(cls, completion: Completion) -> CheckInput:
        """The input for a completion graded on its own, without a case (`evaluate_checks`)."""
        return cls(completion.text, completion.output, completion, model=completion.model)


def _passes_on(error: BaseException) -> bool:
    """Whether an exception out of a user's check stops more than its grade.

    Ctrl-C stops the run, and a cancelled or closed coroutine must end; anything else,
    ``SystemExit`` and pytest's ``fail()`` included, is the check's failure.
    """
    if isinstance(error, KeyboardInterrupt | GeneratorExit):
        return True
    # Not imported here (loading a suite imports this module): a CancelledError needs it.
    asyncio = sys.modules.get("asyncio")
    return asyncio is not None and isinstance(error, asyncio.CancelledError)


def _shown(value: object) -> str:
    """``str 'yes'``, ``tuple of 3``: what a check returned, for an error."""
    kind = type(value).__name__
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} ({shorten(repr(value), _REASON_LIMIT)})"
    return f"{kind} {shorten(repr(value), _REASON_LIMIT)}"


class CustomCheck:
    """A user's check function, ready to grade: the compiled form of `python` and registered types.

    Called with a `Completion` it is a `CompiledCheck` like any other (`evaluate_checks`); the
    runner calls `grade` with the full `CheckInput` and awaits what an async function returns.
    """

    __slots__ = (
        "_failed",
        "_passed",
        "description",
        "function",
        "label",
        "name",
        "threshold",
        "value",
    )

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        label: str,
        name: str,
        description: str,
        threshold: float = DEFAULT_THRESHOLD,
        value: Any = None,
    ) -> None:
        self.function = function
        self.label = label  # how errors name it: checks.py:no_apology, check type 'no_pii' (...)
        self.name = name
        self.description = description
        self.threshold = threshold
        self.value = value  # the definition's value: the second argument, unless None
        self._passed = Grade("custom", name, True, None, None, description)
        self._failed = Grade("custom", name, False, None, "returned False", description)

    def __call__(self, completion: Completion) -> Grade:
        """Grade a completion without its case; an async function is run to completion here."""
        outcome = self.grade(CheckInput.of(completion))
        return outcome if isinstance(outcome, Grade) else settle(outcome)

    def grade(self, check: CheckInput) -> Grade | Awaitable[Grade]:
        """The grade of one response, or an awaitable of it when the function is async."""
        try:
            if self.value is None:
                outcome = self.function(check)
            else:
                outcome = self.function(check, self.value)
        except BaseException as exc:  # a user's check must cost one grade, not the run
            if _passes_on(exc):
                raise
            return self.error(f"raised {type(exc).__name__}: {exc}")
        if inspect.isawaitable(outcome):
            return self._awaited(outcome)
        return self.judge(outcome)

    async def _awaited(self, outcome: Awaitable[Any]) -> Grade:
        try:
            answer = await outcome
        except BaseException as exc:
            if _passes_on(exc):
                raise
            return self.error(f"raised {type(exc).__name__}: {exc}")
        return self.judge(answer)

    def error(self, what: str) -> Grade:
        """The error grade when the function could not grade: it raised or answered nonsense."""
        return Grade(
            "custom", self.name, False, None, None, self.description,
            shorten(f"{self.label} {what}", _REASON_LIMIT),
        )  # fmt: skip

    def judge(self, outcome: object) -> Grade:
        """The grade a function's answer stands for."""
        if isinstance(outcome, bool):
            return self._passed if outcome else self._failed
        if isinstance(outcome, Grade):
            return _custom_kind(outcome)
        if isinstance(outcome, tuple):
            if len(outcome) == 2 and (outcome[1] is None or isinstance(outcome[1], str)):
                verdict, reason = outcome
                if isinstance(verdict, bool):
                    return Grade(
                        "custom", self.name, verdict, None,
                        shorten(reason, _REASON_LIMIT) if reason else None, self.description,
                    )  # fmt: skip
                if _is_number(verdict):
                    return self._scored(verdict, reason)
            return self.error(
                f"returned {_shown(outcome)}; a pair is (passed: bool or a score from 0 to 1, "
                "reason: str or None)"
            )
        if _is_number(outcome):
            return self._scored(outcome, None)
        return self.error(f"returned {_shown(outcome)}; {_RETURNS}")

    def _scored(self, score: float, reason: str | None) -> Grade:
        if not (math.isfinite(score) and 0 <= score <= 1):
            return self.error(f"returned the score {score!r}, outside 0-1; {_RETURNS}")
        passed = score >= self.threshold
        sign = "≥" if passed else "<"
        shown = reason or f"score {score:g} {sign} {self.threshold:g}"
        return Grade(
            "custom",
            self.name,
            passed,
            float(score),
            shorten(shown, _REASON_LIMIT),
            self.description,
            details={"threshold": self.threshold},
        )


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _custom_kind(grade: Grade) -> Grade:
    """The user's own grade, counted with the checks the user wrote (kind ``custom``)."""
    return grade if grade.kind == "custom" else dataclasses.replace(grade, kind="custom")


def settle(outcome: Awaitable[Grade]) -> Grade:
    """The grade an async check's awaitable gives, awaited to the end here (sync callers).

    Inside a running event loop (sync code called from async code) it runs on a loop of its
    own in another thread, as `asyncio.run` cannot nest.
    """
    # Imported here: loading a suite imports this module, and asyncio costs ~15 ms.
    import asyncio
    import concurrent.futures

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(outcome))
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="promptum-check") as pool:
        return pool.submit(asyncio.run, _await(outcome)).result()


async def _await(outcome: Awaitable[Grade]) -> Grade:
    return await outcome


def signature_kind(function: object) -> ValueKind | str:
    """Whether ``function`` takes a check's value (its second argument), or why it cannot check."""
    if not callable(function):
        return f"it is {_shown(function)}, not a function (or a CheckType)"
    takes_one = call_problem(function, 1, "f(response)") is None
    takes_two = call_problem(function, 2, "f(response, value)") is None
    if takes_one:
        return ValueKind.OPTIONAL if takes_two else ValueKind.NONE
    if takes_two:
        return ValueKind.ANY
    return (
        f"its signature is {inspect.signature(function)}, but a check function is called as "
        "f(response) or f(response, value)"
    )


def doc_line(function: object) -> str:
    """The first line of a function's docstring, or an empty string."""
    doc = inspect.getdoc(function) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def function_check_type(
    name: str,
    function: Callable[..., Any],
    kind: ValueKind,
    description: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> ScoredCheckType:
    """A check type made of one function: ``{type: name, value: ...}`` calls it per response."""
    passes_when = description or doc_line(function) or f"{name} passes"

    def build(value: Any, check_threshold: float, _model: str | None) -> CompiledCheck:
        shown = (
            passes_when
            if value is None
            else f"{passes_when} ({shorten(repr(value), _REASON_LIMIT)[:60]})"
        )
        return CustomCheck(
            function,
            label=f"check type {name!r} ({_qualified(function)})",
            name=name,
            description=shown,
            threshold=check_threshold,
            value=value,
        )

    return ScoredCheckType(
        name,
        passes_when,
        kind,
        lambda value, _case_insensitive: build(value, threshold, None),
        default_threshold=threshold,
        build_scored=build,
    )


def _qualified(function: object) -> str:
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None) or type(function).__name__
    return f"{module}.{qualname}" if module else qualname


def plugin_check_type(check_type: CheckType) -> CheckType:
    """A full `CheckType` from a plugin, its checks graded as the user's: kind ``custom``.

    A check that raises, or answers with a `CheckResult` (the form before grades), still
    gives a grade naming the type.
    """
    label = f"check type {check_type.name!r}"

    def adapt(compiled: CompiledCheck) -> CompiledCheck:
        def run(completion: Completion) -> Grade:
            try:
                outcome: object = compiled(completion)
            except BaseException as exc:
                if _passes_on(exc):
                    raise
                return Grade(
                    "custom", check_type.name, False, None, None, f"{check_type.name} check",
                    shorten(f"{label} raised {type(exc).__name__}: {exc}", _REASON_LIMIT),
                )  # fmt: skip
            return as_custom_grade(outcome, check_type.name, label)

        return run

    build = check_type.build
    changes: dict[str, Any] = {"build": lambda value, folded: adapt(build(value, folded))}
    if isinstance(check_type, ScoredCheckType) and check_type.build_scored is not None:
        scored = check_type.build_scored
        changes["build_scored"] = lambda value, threshold, model: adapt(
            scored(value, threshold, model)
        )
    return dataclasses.replace(check_type, **changes)


def as_custom_grade(outcome: object, name: str, label: str) -> Grade:
    """A plugin check's answer as a grade of kind ``custom``; anything else is an error grade."""
    if isinstance(outcome, Grade):
        return _custom_kind(outcome)
    if isinstance(outcome, CheckResult):
        return Grade("custom", name, outcome.passed, None, outcome.reason, outcome.description)
    return Grade(
        "custom", name, False, None, None, f"{name} check",
        f"{label} returned {_shown(outcome)}, not a Grade",
    )  # fmt: skip
