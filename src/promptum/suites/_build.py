"""Build a `TestCase` from a validated case, merging the suite's defaults and rendering vars."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ValidationError

from promptum.checks import CheckDefinition
from promptum.results import Message
from promptum.runner import (
    GenerationParams,
    JudgeConfig,
    TemplateError,
    TestCase,
    is_template,
    render,
)
from promptum.suites._format import CaseFields, DefaultsSpec, ParamsSpec
from promptum.suites._locate import Loc, Locator, problem
from promptum.validation import compiled_schema


@dataclass(frozen=True, slots=True)
class SuiteContext:
    """What a suite gives every one of its cases."""

    folder: Path
    """The folder relative to which `module:Class` response models are imported."""
    models: tuple[str, ...] = ()
    system: str | None = None
    prompt: str | None = None
    variables: Mapping[str, Any] = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    defaults: DefaultsSpec = field(default_factory=DefaultsSpec)
    repeat: int = 1
    judge: JudgeConfig | None = None


class InvalidCaseError(Exception):
    """The located problems of one case, reported together with the rest of the suite."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def _merge_params(*specs: ParamsSpec | None) -> GenerationParams:
    merged: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for spec in specs:
        if spec is None:
            continue
        merged.update(spec.model_dump(exclude={"extra"}, exclude_none=True))
        extra.update(spec.extra)
    return GenerationParams(**merged, extra=extra)


def _load_module(module_name: str, folder: Path) -> ModuleType:
    """The module beside the suite if there is one, else the one on the Python path."""
    local = folder.joinpath(*module_name.split(".")).with_suffix(".py")
    if not local.is_file():
        return importlib.import_module(module_name)
    # Loaded from its file under a name of its own: two suites that each keep a `models.py`
    # must get their own classes, not whichever was imported first.
    digest = hashlib.sha256(str(local.resolve()).encode()).hexdigest()[:12]
    unique = f"_promptum_suite_{digest}_{module_name.replace('.', '_')}"
    if unique in sys.modules:
        return sys.modules[unique]
    spec = importlib.util.spec_from_file_location(unique, local)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {local}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[unique]
        raise
    return module


def _import_model(reference: str, folder: Path) -> type[BaseModel]:
    """Import ``module:Class`` as a pydantic model, looking beside the suite file too."""
    module_name, _, class_name = reference.partition(":")
    if not module_name or not class_name:
        raise ValueError(
            f"response_model {reference!r} must be `module:Class` (a pydantic model) "
            "or an inline JSON Schema mapping"
        )
    for root in (str(folder), str(Path.cwd())):
        if root not in sys.path:
            sys.path.append(root)
    try:
        module = _load_module(module_name, folder)
    except ImportError as exc:
        raise ValueError(
            f"cannot import module {module_name!r} for response_model: {exc}; it is looked up "
            f"on the Python path and in {folder}"
        ) from exc
    except Exception as exc:  # the module itself is broken: a syntax error, a failing import
        raise ValueError(
            f"module {module_name!r} of response_model failed to import: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    model = getattr(module, class_name, None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise ValueError(f"{reference!r} is not a pydantic model class")
    return model


def _schema_of(schema: dict[str, Any]) -> dict[str, Any]:
    import jsonschema

    try:
        compiled_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(f"response_model is not a valid JSON Schema: {exc.message}") from exc
    return schema


@lru_cache(maxsize=64)
def _model_schema(reference: str, folder: Path) -> tuple[dict[str, Any], type[BaseModel]]:
    model = _import_model(reference, folder)
    try:
        return model.model_json_schema(), model
    except Exception as exc:  # e.g. a field type that has no JSON Schema
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{reference!r} has no JSON Schema: {reason}") from exc


def _structured_output(
    spec: str | dict[str, Any], folder: Path
) -> tuple[dict[str, Any], type[BaseModel] | None]:
    """The schema (and pydantic model) of a response_model, checked once per distinct spec."""
    if isinstance(spec, dict):
        return _schema_of(spec), None
    return _model_schema(spec, folder)


def _ordered_unique(*groups: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tag for group in groups for tag in group))


class _Problems:
    def __init__(self, locator: Locator) -> None:
        self.locator = locator
        self.items: list[str] = []

    def add(self, loc: Loc, message: str) -> None:
        self.items.append(problem(self.locator, loc, message))


def _rendered_check(
    check: CheckDefinition, loc: Loc, rendered: Callable[[str, Loc], str], problems: _Problems
) -> CheckDefinition:
    """The check with `{{ vars }}` in its value filled in (e.g. from a CSV column)."""
    if not (isinstance(check.value, str) and is_template(check.value)):
        return check
    value = rendered(check.value, (*loc, "value"))
    try:
        return CheckDefinition(
            type=check.type, value=value, case_insensitive=check.case_insensitive
        )
    except ValidationError as exc:
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        problems.add(loc, f"{message} (after filling in the template)")
        return check


def _messages(
    case: CaseFields,
    context: SuiteContext,
    rendered: Callable[[str, Loc], str],
    problems: _Problems,
) -> tuple[Message, ...]:
    """The conversation to send: the system message, then `messages`, `query` or `prompt`."""
    messages: list[Message] = []
    system = case.system or context.defaults.system or context.system
    if system is not None:
        messages.append(Message(role="system", content=rendered(system, ("system",))))
    if case.query is not None and case.messages is not None:
        problems.add(("messages",), "give either `query` or `messages`, not both")
    elif case.messages is not None:
        if case.messages and case.messages[0].role == "system":
            messages.clear()  # the conversation's own system message wins
        for index, message in enumerate(case.messages):
            content = rendered(message.content, ("messages", index, "content"))
            messages.append(Message(role=message.role, content=content))
    elif case.query is not None:
        messages.append(Message(role="user", content=rendered(case.query, ("query",))))
    elif context.prompt is not None:
        messages.append(Message(role="user", content=rendered(context.prompt, ())))
    else:
        problems.add((), "the case has no prompt: give `query`, `messages`, or a suite `prompt`")
    return tuple(messages)


def build_case(
    case: CaseFields, locator: Locator, default_id: str | None, context: SuiteContext
) -> TestCase:
    """Turn one validated case into a TestCase; raise InvalidCaseError listing what is wrong."""
    problems = _Problems(locator)
    defaults = context.defaults
    case_id = case.id or default_id
    if case_id is None:
        problems.add(("id",), "every test case needs an `id` (a short unique name)")
    variables = {**context.variables, **case.vars}

    def rendered(text: str, loc: Loc) -> str:
        try:
            return render(text, variables)
        except TemplateError as exc:
            problems.add(loc, str(exc))
            return text

    messages = _messages(case, context, rendered, problems)

    expected_behavior = case.expected_behavior or defaults.expected_behavior
    if expected_behavior is not None:
        expected_behavior = rendered(expected_behavior, ("expected_behavior",))

    schema: dict[str, Any] | None = None
    model: type[BaseModel] | None = None
    response_model = case.response_model or defaults.response_model
    if response_model is not None:
        try:
            schema, model = _structured_output(response_model, context.folder)
        except ValueError as exc:
            problems.add(("response_model",), str(exc))
    if (case.expected or case.attack_target) and response_model is None:
        loc = ("expected",) if case.expected else ("attack_target",)
        problems.add(
            loc, "field assertions need structured output: add `response_model` to the case"
        )

    checks = [
        *(_rendered_check(check, (), rendered, problems) for check in defaults.checks),
        *(
            _rendered_check(check, ("checks", index), rendered, problems)
            for index, check in enumerate(case.checks)
        ),
    ]

    if problems.items:
        raise InvalidCaseError(problems.items)
    assert case_id is not None  # a missing id was reported above
    return TestCase(
        id=case_id,
        messages=messages,
        models=tuple(case.models or context.models),
        params=_merge_params(defaults.params, case.params),
        checks=tuple(checks),
        response_schema=schema,
        response_model=model,
        expected=case.expected,
        attack_target=case.attack_target,
        expected_behavior=expected_behavior,
        judge=context.judge,
        tags=_ordered_unique(context.tags, defaults.tags, case.tags),
        repeat=case.repeat or context.repeat,
        source=locator.line(),
    )
