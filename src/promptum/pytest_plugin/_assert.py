"""`assert_prompt`: grade one response in a test with the checks, assertions and judge of a suite.

::

    assert_prompt(answer("What is the capital of France?"), contains="Paris",
                  judge="Names Paris as the capital")
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Literal, TypedDict, Unpack

from pydantic import BaseModel

from promptum.cases import JudgeConfig, TestCase
from promptum.checks import CheckDefinition
from promptum.errors import ConfigError, PromptumError
from promptum.foundations.suggestions import did_you_mean
from promptum.pytest_plugin._engine import Engine
from promptum.pytest_plugin._text import headline, reason_lines
from promptum.runner import grade, status_of, with_ungraded
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult

_CASE_ID = "assert_prompt"


class PromptAssertionError(AssertionError):
    """A response failed a check, a field assertion or the judge: the test fails."""

    __module__ = "promptum.pytest_plugin"  # the name tracebacks show: the public one

    def __init__(self, message: str, result: CaseResult) -> None:
        super().__init__(message)
        self.result = result


class PromptGradingError(PromptumError):
    """The response could not be graded (the judge's call failed): nothing was decided."""

    __module__ = "promptum.pytest_plugin"

    def __init__(self, message: str, result: CaseResult) -> None:
        super().__init__(message)
        self.result = result


class ModelCallError(PromptumError):
    """A model call made by the `promptum` fixture failed after its retries."""

    __module__ = "promptum.pytest_plugin"


class PromptChecks(TypedDict, total=False):
    """What `assert_prompt` checks; each check keyword takes one value or a list of them."""

    contains: str | Sequence[str]
    not_contains: str | Sequence[str]
    regex: str | Sequence[str]
    not_regex: str | Sequence[str]
    exact_match: str
    min_length: int
    max_length: int
    is_valid_json: bool
    case_insensitive: bool
    """For the string checks (contains, not_contains, regex, not_regex, exact_match)."""
    checks: Sequence[CheckDefinition | Mapping[str, Any]]
    """More checks in the suite format: ``{"type": "max_latency_ms", "value": 2000}``."""
    judge: str
    """The expected behaviour, graded by the judge model."""
    judge_model: str
    judge_threshold: float
    prompt: str
    """What the model was asked: the judge sees it (it grades the answer to it)."""
    response_model: type[BaseModel] | Mapping[str, Any]
    """A pydantic model or JSON Schema the response must fit (structured output)."""
    expected: Mapping[str, Any]
    attack_target: Mapping[str, Any]


_STRING_CHECKS = ("contains", "not_contains", "regex", "not_regex")


def _check_list(options: PromptChecks) -> list[CheckDefinition | Mapping[str, Any]]:
    folded = bool(options.get("case_insensitive", False))
    checks: list[CheckDefinition | Mapping[str, Any]] = []
    for kind in _STRING_CHECKS:
        given: str | Sequence[str] = options.get(kind, ())  # type: ignore[assignment]
        values = [given] if isinstance(given, str) else list(given)
        checks += [{"type": kind, "value": v, "case_insensitive": folded} for v in values]
    if "exact_match" in options:
        value = options["exact_match"]
        checks.append({"type": "exact_match", "value": value, "case_insensitive": folded})
    for kind in ("min_length", "max_length"):
        if kind in options:
            checks.append({"type": kind, "value": options[kind]})  # type: ignore[literal-required]
    if options.get("is_valid_json"):
        checks.append({"type": "is_valid_json"})
    return checks + list(options.get("checks", ()))


def _case(options: PromptChecks) -> TestCase:
    """The options as a test case, validated as a `Prompt` is."""
    from promptum.providers import DEFAULT_MODEL
    from promptum.session import Prompt

    unknown = sorted(set(options) - set(PromptChecks.__annotations__))
    if unknown:
        hint = did_you_mean(unknown[0], list(PromptChecks.__annotations__))
        raise ConfigError(
            f"assert_prompt() got unknown option(s) {', '.join(unknown)}.{hint} It takes "
            f"{', '.join(PromptChecks.__annotations__)}"
        )
    expected_behavior = options.get("judge")
    judge: JudgeConfig | Literal[False] = False
    if expected_behavior is not None:
        model = options.get("judge_model", DEFAULT_MODEL)
        threshold = options.get("judge_threshold")
        judge = JudgeConfig(model) if threshold is None else JudgeConfig(model, threshold)
    elif "judge_model" in options or "judge_threshold" in options:
        raise ConfigError("assert_prompt(): judge_model and judge_threshold need judge='...'")
    prompt = Prompt(
        name=_CASE_ID,
        prompt=options.get("prompt", ""),
        checks=_check_list(options),
        expected_behavior=expected_behavior,
        response_model=options.get("response_model"),
        expected=options.get("expected"),
        attack_target=options.get("attack_target"),
        judge=judge,
    )
    return prompt.to_case((), None)


def as_completion(response: object, case: TestCase) -> Completion:
    """The response as a completion: text, a Completion, a dict or a pydantic model."""
    if isinstance(response, Completion):
        completion = response
    elif isinstance(response, str):
        completion = Completion(text=response)
    elif isinstance(response, BaseModel):
        completion = Completion(
            text=response.model_dump_json(), output=response.model_dump(mode="json")
        )
    elif isinstance(response, Mapping):
        output = dict(response)
        completion = Completion(text=json.dumps(output, default=str), output=output)
    else:
        raise ConfigError(
            f"assert_prompt() grades a response: text, a promptum Completion, a dict or a "
            f"pydantic model, not {type(response).__name__}"
        )
    schema = case.response_schema
    if schema is None or not completion.ok or completion.output is not None:
        return completion
    from promptum.providers import SchemaMismatch, parse_structured

    try:
        return completion.model_copy(
            update={"output": parse_structured(completion.text, dict(schema))}
        )
    except SchemaMismatch as exc:
        return completion.model_copy(update={"output_error": str(exc)})


def _message(result: CaseResult) -> str:
    return "\n".join([f"assert_prompt: {headline(result)}", *reason_lines(result)])


def check_response(
    response: object,
    options: PromptChecks,
    engine: Callable[[], AbstractContextManager[Engine]],
) -> CaseResult:
    """Grade `response`; raise PromptAssertionError or PromptGradingError unless it passed."""
    __tracebackhide__ = True  # the failure is in the test that called assert_prompt
    case = _case(options)
    completion = as_completion(response, case)
    grades = grade(case, completion)
    if completion.ok and case.grading.judge is not None:
        with engine() as running:
            grades += running.judge(case, completion.text)
    grades = with_ungraded(case, completion, grades)  # asserting nothing is no pass
    result = CaseResult(
        case_id=case.id,
        model=completion.model,
        status=status_of(completion, grades),
        messages=list(case.messages),
        completion=completion,
        grades=grades,
        expected_behavior=case.grading.expected_behavior,
    )
    if result.status == "fail":
        raise PromptAssertionError(_message(result), result)
    if result.status == "error":
        raise PromptGradingError(_message(result), result)
    return result


def _own_engine() -> AbstractContextManager[Engine]:
    """An engine for one call outside the fixture: the judge's client, closed after it."""
    from contextlib import closing

    return closing(Engine.start(cache=True, cache_path=Path.cwd() / ".promptum" / "cache.sqlite"))


def assert_prompt(response: object, **options: Unpack[PromptChecks]) -> CaseResult:
    """Assert that a response passes the given checks, field assertions and judge.

    Raises `PromptAssertionError` (an AssertionError) listing every failed check with its
    reason and the start of the response; `PromptGradingError` when the judge could not
    grade. Returns the graded result. Outside the `promptum` fixture the judge gets a
    client of its own for the call; ``promptum.assert_prompt`` shares the session's.
    """
    # Hidden from pytest's traceback, as check_response is: a failure points at the test.
    __tracebackhide__ = True
    return check_response(response, options, _own_engine)


def shared(engine: Engine) -> AbstractContextManager[Engine]:
    """The session's engine, left open after the call."""
    return nullcontext(engine)
