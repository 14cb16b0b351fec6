"""Build a `TestCase` from a validated case, merging the suite's defaults and rendering vars."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from promptum._imports import import_referenced
from promptum.asr import REDTEAM_TAG
from promptum.case_result import Message, namespaced
from promptum.checks import SHARED, CheckDefinition, CheckTable, expressions_of
from promptum.providers import INPUTS, PythonTarget, Target
from promptum.runner import (
    BUILTIN_PROMPTS,
    JUDGE_VARIABLES,
    Criterion,
    JudgeConfig,
    TestCase,
    is_prompt_name,
    join_context,
    judged_criteria,
    missing_context,
    prompt_uses,
)
from promptum.suites._assertion_fields import assertion_problems, assertion_schema
from promptum.suites._canary import (
    NOT_PLANTED,
    NOT_RENDERED,
    RESERVED,
    VARIABLE,
    Canary,
    with_canary,
)
from promptum.suites._expressions import expression_problems
from promptum.suites._format import (
    CaseFields,
    Context,
    DefaultsSpec,
    JudgeSpec,
    MessageSpec,
    SuiteSpec,
)
from promptum.suites._locate import Loc, Locator, format_loc, problem
from promptum.suites._missing_context import (
    CASE_WITHOUT_CONTEXT,
    lacks_context,
    only_context_undefined,
)
from promptum.suites._reused import Reused, has_template
from promptum.suites._target import suite_target
from promptum.suites._tools import (
    NAMING_TOOLS,
    choice_json,
    forbidden_call_problems,
    tool_check_problems,
    tool_choice_problem,
    tools_json,
)
from promptum.suites._turns import (
    NO_CONVERSATION,
    Tools,
    conversation_of,
    is_conversation,
    structure_problems,
)
from promptum.templating import TemplateError, render
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
    must_pass_tags: frozenset[str] = frozenset()
    """Cases with any of these tags gate on their own (the suite's `gate.must_pass_tags`)."""
    literal: bool = False
    """Texts are sent as written, not rendered as Jinja (the Python API's `Prompt`)."""
    suite: str = ""
    """The suite's name, which namespaces its case ids in a run (``suite/id``)."""
    variant: str = ""
    """The prompt variant being built ("" without `prompts:`); its text is `prompt` or
    `template`, and a case's `query` is then a variable of it."""
    template: tuple[MessageSpec, ...] | None = None
    """A chat-template variant: the conversation, each message a template of the vars."""
    target: Target | None = None
    """The suite's `target`: answers every case without its own `models` or `target`."""
    tools: tuple[dict[str, Any], ...] | None = None
    """The suite's `tools` (OpenAI function schemas), for cases without their own."""
    tool_choice: str | dict[str, Any] | None = None
    where: str = ""
    """The suite's folder within a folder run (``team-a/``): it starts target names."""
    checks: CheckTable | None = None
    """The checks compiled in this load, for checks filled in from a case's vars."""
    reused: Reused = field(default_factory=Reused, compare=False, repr=False)
    """What building each case finds the same in `defaults`, looked at once."""


class InvalidCaseError(Exception):
    """The located problems of one case, reported together with the rest of the suite.

    `without_context` are the suite's templates (their places in the suite) reading
    {{ context }}, which this case does not give: the loader says so once per template.
    """

    def __init__(self, problems: list[str], without_context: tuple[Loc, ...] = ()) -> None:
        lacking = [f"{format_loc(loc)}: {CASE_WITHOUT_CONTEXT}" for loc in without_context]
        super().__init__("\n".join([*problems, *lacking]))
        self.problems = problems
        self.without_context = without_context


def _import_model(reference: str, folder: Path) -> type[BaseModel]:
    """Import ``module:Class`` as a pydantic model, looking beside the suite file too."""
    module_name, _, class_name = reference.partition(":")
    if not module_name or not class_name:
        raise ValueError(
            f"response_model {reference!r} must be `module:Class` (a pydantic model) "
            "or an inline JSON Schema mapping"
        )
    module = import_referenced(module_name, folder, "response_model")
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
    spec: str | dict[str, Any] | type[BaseModel], folder: Path
) -> tuple[dict[str, Any], type[BaseModel] | None]:
    """The schema (and pydantic model) of a response_model, checked once per distinct spec."""
    if isinstance(spec, type):  # a class given in Python
        return spec.model_json_schema(), spec
    if isinstance(spec, dict):
        return _schema_of(spec), None
    return _model_schema(spec, folder)


def _ordered_unique(*groups: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tag for group in groups for tag in group))


class _Problems:
    def __init__(self, locator: Locator) -> None:
        self.locator = locator
        self.items: list[str] = []
        self.without_context: list[Loc] = []

    def add(self, loc: Loc, message: str) -> None:
        if loc[:1] == ("defaults",):
            # The suite's defaults, filled in with this case's vars: the case is where it fails.
            loc, message = (), f"{format_loc(loc)}: {message}"
        self.items.append(problem(self.locator, loc, message))


def filled_in(value: Any, loc: Loc, rendered: Callable[[str, Loc], str]) -> Any:
    """`value` with every template string within it rendered; mapping keys stay as written.

    A value without templates is returned itself, so a check left unchanged stays the same
    object (the suite's defaults, checked once, are known by it).
    """
    if not has_template(value):
        return value
    if isinstance(value, str):
        return rendered(value, loc)
    if isinstance(value, Mapping):
        return {key: filled_in(item, (*loc, key), rendered) for key, item in value.items()}
    return [filled_in(item, (*loc, index), rendered) for index, item in enumerate(value)]


def _rendered_check(
    check: CheckDefinition,
    loc: Loc,
    rendered: Callable[[str, Loc], str],
    problems: _Problems,
    context: SuiteContext,
) -> CheckDefinition:
    """The check with `{{ vars }}` anywhere in its value filled in (e.g. from a CSV column)."""
    if not has_template(check.value):
        return check
    value = filled_in(check.value, (*loc, "value"), rendered)
    shared = {SHARED: context.checks}
    try:
        return CheckDefinition.model_validate(check.model_dump() | {"value": value}, context=shared)
    except ValidationError as exc:
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        problems.add(loc, f"{message} (after filling in the template)")
        return check


JudgeProblem = tuple[Loc, str]
"""A problem of a judge's settings, located within its `judge` section."""


def merged_judge(spec: JudgeSpec, base: JudgeConfig | None) -> JudgeConfig:
    """The keys `spec` sets, over `base` (the default judge when there is none)."""
    if base is None:
        from promptum.providers import DEFAULT_MODEL

        base = JudgeConfig(model=DEFAULT_MODEL)
    given = spec.model_fields_set
    changes: dict[str, Any] = {
        key: getattr(spec, key)
        for key in ("threshold", "prompt", "samples", "temperature")
        if key in given
    }
    if spec.model is not None:
        changes["model"] = spec.model
    if "criteria" in given:
        changes["criteria"] = tuple(
            Criterion(name, c.rubric or "", c.threshold, c.prompt, c.metric)
            for name, c in (spec.criteria or {}).items()
        )
    return replace(base, **changes)


def _prompt_problems(prompt: str | None, loc: Loc) -> list[JudgeProblem]:
    """What is wrong with a judge prompt: a built-in's name mistyped, a template that fails."""
    if prompt is None or prompt in BUILTIN_PROMPTS:
        return []
    if is_prompt_name(prompt):
        close = difflib.get_close_matches(prompt, list(BUILTIN_PROMPTS), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        return [
            (
                loc,
                f"unknown built-in judge prompt {prompt!r}.{hint} Built-in prompts: "
                f"{', '.join(BUILTIN_PROMPTS)}; or write a Jinja template that uses "
                "{{ response }}",
            )
        ]
    try:
        render(prompt, dict.fromkeys(JUDGE_VARIABLES, ""))
    except TemplateError as exc:
        import jinja2

        cause = exc.__cause__
        message = str(exc)
        if isinstance(cause, jinja2.UndefinedError):
            message = (
                f"template variable error: {cause.message}; a judge prompt sees "
                f"{', '.join(JUDGE_VARIABLES)}"
            )
        return [(loc, message)]
    return []


def _unshown_rubric(prompt: str | None, own: bool) -> str:
    """Why a criterion's rubric would never reach the judge, and what to do."""
    whose = "its own prompt" if own else "the judge's prompt"
    if prompt in BUILTIN_PROMPTS:
        return (
            f"{whose}, {prompt!r}, shows no rubric (it grades against the context): drop "
            "the rubric, or give this criterion `prompt: default`"
        )
    also = (
        " ({{ expected_behavior }} is the case's expected_behavior, the same for every criterion)"
        if prompt_uses(prompt, "expected_behavior")
        else ""
    )
    return (
        f"{whose} does not use {{{{ rubric }}}}, so this criterion's rubric never reaches "
        f"the judge: write {{{{ rubric }}}} where the criterion belongs{also}"
    )


def judge_problems(config: JudgeConfig) -> list[JudgeProblem]:
    """What is wrong with a judge's settings: unknown prompts, rubrics no prompt shows."""
    problems = _prompt_problems(config.prompt, ("prompt",))
    for criterion in config.criteria:
        loc: Loc = ("criteria", criterion.name)
        problems += _prompt_problems(criterion.prompt, (*loc, "prompt"))
        prompt = criterion.prompt or config.prompt
        uses_rubric = prompt_uses(prompt, "rubric")
        if uses_rubric and not criterion.rubric:
            problems.append(
                (
                    loc,
                    "this criterion needs a rubric, what a good response does: the judge "
                    "prompt grades against {{ rubric }} (write the criterion as its rubric, "
                    "or give `rubric:`)",
                )
            )
        elif not uses_rubric and criterion.rubric:
            problems.append((loc, _unshown_rubric(prompt, criterion.prompt is not None)))
    return problems


def _context(spec: Context | None, rendered: Callable[[str, Loc], str]) -> tuple[str, ...] | None:
    """The case's documents, each rendered with its vars."""
    if spec is None:
        return None
    if isinstance(spec, str):
        return (rendered(spec, ("context",)),)
    return tuple(rendered(text, ("context", index)) for index, text in enumerate(spec))


def _case_judge(
    case: CaseFields,
    suite: JudgeConfig | None,
    rendered: Callable[[str, Loc], str],
    problems: _Problems,
) -> JudgeConfig | None:
    """The suite's judge with the case's own keys over it, rubrics rendered with its vars."""
    spec = case.judge
    if spec is False:
        return None
    config = suite
    if spec is not None:
        config = merged_judge(spec, suite)
        # The suite's own mistakes are reported once, at the suite's `judge`.
        known = set(judge_problems(suite)) if suite is not None else set()
        for loc, message in judge_problems(config):
            if (loc, message) not in known:
                problems.add(("judge", *loc), message)
    if config is None or not config.criteria:
        return config
    criteria = tuple(
        replace(c, rubric=rendered(c.rubric, ("judge", "criteria", c.name)))
        for c in config.criteria
    )
    return replace(config, criteria=criteria)


def context_problem(
    config: JudgeConfig,
    expected_behavior: str | None,
    fix: str = "`context:`, or `defaults.context` for every case",
) -> str | None:
    """Why a case without context cannot be judged as configured, or None."""
    names = missing_context(config, expected_behavior)
    if not names:
        return None
    prompts = {
        c.name: c.prompt or config.prompt for c in judged_criteria(config, expected_behavior)
    }
    shown = ", ".join(f"{name!r} (prompt: {_prompt_label(prompts[name])})" for name in names)
    which = "criterion" if len(names) == 1 else "criteria"
    return (
        f"the judge prompt of {which} {shown} uses {{{{ context }}}}, but the case has no "
        f"`context`: give it the documents the response should rest on ({fix})"
    )


def _prompt_label(prompt: str | None) -> str:
    if prompt is None:
        return "default"
    return prompt if prompt in BUILTIN_PROMPTS else "a template"


class _Rendered(Protocol):
    def __call__(self, text: str, loc: Loc, in_suite: Loc | None = None) -> str: ...


def _messages(
    case: CaseFields,
    context: SuiteContext,
    rendered: _Rendered,
    problems: _Problems,
) -> tuple[Message, ...]:
    """The conversation to send: the system message, then `messages`, `query` or `prompt`."""
    messages: list[Message] = []
    system = case.system or context.defaults.system or context.system
    if system is not None:
        suite_system: Loc | None = None  # where the suite wrote it, when the case did not
        if not case.system:
            suite_system = ("defaults", "system") if context.defaults.system else ("system",)
        content = rendered(system, ("system",), suite_system)
        messages.append(Message(role="system", content=content))
    if case.query is not None and case.messages is not None:
        problems.add(("messages",), "give either `query` or `messages`, not both")
    elif is_conversation(case):
        pass  # its turns are its user's messages (`structure_problems` says what else is)
    elif context.variant and case.messages is not None:
        problems.add(
            ("messages",),
            "the suite's `prompts:` variants write the conversation: give this case `query` "
            "or `vars` (the variants see them as {{ query }} and their names), not `messages`",
        )
    elif context.template is not None:
        if context.template[0].role == "system":
            messages.clear()  # the template's own system message wins
        for index, message in enumerate(context.template):
            at: Loc = ("prompts", context.variant, index)
            content = rendered(message.content, at, at)
            messages.append(Message(role=message.role, content=content))
    elif context.variant and context.prompt is not None:
        content = rendered(context.prompt, (), ("prompts", context.variant))
        messages.append(Message(role="user", content=content))
    elif case.messages is not None:
        if case.messages and case.messages[0].role == "system":
            messages.clear()  # the conversation's own system message wins
        for index, message in enumerate(case.messages):
            content = rendered(message.content, ("messages", index, "content"))
            replayed = {"tool_calls": message.tool_calls, "tool_call_id": message.tool_call_id}
            messages.append(Message(role=message.role, content=content, **replayed))
    elif case.query is not None:
        messages.append(Message(role="user", content=rendered(case.query, ("query",))))
    elif context.prompt is not None:
        content = rendered(context.prompt, (), ("prompt",))
        messages.append(Message(role="user", content=content))
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
    canary = Canary(namespaced(context.suite, case_id or ""))
    if VARIABLE in case.vars:  # the suite's own `vars` are checked once, with its settings
        problems.add(("vars", VARIABLE), RESERVED)

    def rendered(text: str, loc: Loc, in_suite: Loc | None = None) -> str:
        """`text` filled in; `in_suite`: where the suite wrote it, when the case did not."""
        if context.literal:
            return text
        try:
            return render(text, canary.scope(text, variables))
        except TemplateError as exc:
            if lacks_context(text, variables):
                if in_suite is None:
                    problems.add(loc, CASE_WITHOUT_CONTEXT)
                else:  # said once for the suite's template, naming the cases
                    problems.without_context.append(in_suite)
                if only_context_undefined(str(exc)):
                    return text
            problems.add(loc, str(exc))
            return text

    documents = _context(case.context if case.context is not None else defaults.context, rendered)
    if documents is not None:
        # Retrieved material is the app's to place in the prompt: templates may use it.
        variables["context"] = join_context(documents)

    if context.variant and case.query is not None:
        # The variant is the prompt: the case's query is what it fills in.
        variables["query"] = rendered(case.query, ("query",))
    messages = _messages(case, context, rendered, problems)

    expected_behavior = case.expected_behavior or defaults.expected_behavior
    if expected_behavior is not None:
        expected_behavior = rendered(expected_behavior, ("expected_behavior",))

    # Field assertion values are templates too, as check values are (an attack's target).
    expected = filled_in(case.expected, ("expected",), rendered)
    attack_target = filled_in(case.attack_target, ("attack_target",), rendered)

    judge = _case_judge(case, context.judge, rendered, problems)
    if judge is not None and documents is None:
        missing = context_problem(judge, expected_behavior)
        if missing is not None:
            problems.add(("context",), missing)

    schema: dict[str, Any] | None = None
    model: type[BaseModel] | None = None
    response_model = case.response_model or defaults.response_model
    if response_model is not None:
        try:
            schema, model = _structured_output(response_model, context.folder)
        except ValueError as exc:
            problems.add(("response_model",), str(exc))
    target = context.target if case.models is None else None
    if case.target is not None:
        try:
            target = suite_target(case.target, context.folder, context.where)
        except ValueError as exc:
            problems.add(("target",), str(exc))
    # A target's dict answer is structured output even without a response_model.
    needs_schema = target is None and case.target is None
    if (expected or attack_target) and response_model is None and needs_schema:
        loc = ("expected",) if expected else ("attack_target",)
        problems.add(
            loc, "field assertions need structured output: add `response_model` to the case"
        )
    transform = case.transform or defaults.transform
    # A transform reshapes the output: its fields are known only when it runs.
    if schema is not None and transform is None:
        for field_loc, message in assertion_problems(
            assertion_schema(schema, model), expected, attack_target
        ):
            problems.add(field_loc, message)

    reused = context.reused
    plain = [reused.plain(check) for check in defaults.checks]
    checks = [
        *(
            check
            if plain[index]
            else _rendered_check(check, ("defaults", "checks", index), rendered, problems, context)
            for index, check in enumerate(defaults.checks)
        ),
        *(
            _rendered_check(check, ("checks", index), rendered, problems, context)
            for index, check in enumerate(case.checks)
        ),
    ]

    # Most cases have no expression: their checks are looked at once, nothing located.
    # (A plain default check is itself in every case, and has none.)
    looked_at = checks[len(plain) :]
    looked_at += (check for check, same in zip(checks, plain, strict=False) if not same)
    if transform is not None or any(expressions_of(check.compiled) for check in looked_at):
        at_checks: list[Loc] = [("defaults", "checks", i) for i in range(len(defaults.checks))]
        at_checks += [("checks", i) for i in range(len(case.checks))]
        at_transform: Loc = ("transform",) if case.transform else ("defaults", "transform")
        for expression_loc, message in expression_problems(
            zip(at_checks, checks, strict=True),
            None if transform is None else (at_transform, transform),
            variables,
        ):
            problems.add(expression_loc, message)

    checks, unplanted = with_canary(checks, canary, messages, documents, context.checks)
    for index in unplanted:
        unfilled = NOT_RENDERED if context.literal else NOT_PLANTED
        problems.add(_check_loc(index, len(defaults.checks)), unfilled)

    for at_key, message in structure_problems(case, context.variant):
        problems.add(at_key, message)

    def conversation_check(check: CheckDefinition, loc: Loc) -> CheckDefinition:
        filled = _rendered_check(check, loc, rendered, problems, context)
        for expression_loc, message in expression_problems([(loc, filled)], None, variables):
            problems.add(expression_loc, message)
        bound, unplanted = with_canary([filled], canary, messages, documents, context.checks)
        if unplanted:
            problems.add(loc, NOT_RENDERED if context.literal else NOT_PLANTED)
        return bound[0]

    conversation = NO_CONVERSATION  # most cases are one request: no Tools made for them
    if is_conversation(case) or case.conversation is not None:
        conversation = conversation_of(
            case,
            judge,
            (schema, model) if schema is not None and transform is None else None,
            Tools(
                problems.add,
                rendered,
                lambda text: canary.scope(text, variables),
                conversation_check,
                lambda value, loc: filled_in(value, loc, rendered),
                lambda criteria: _criteria_problems(judge, criteria),
                locator.line,
                context.literal,
                needs_schema and response_model is None,
            ),
        )

    answered = _answered_by(case, context, target, problems)
    _case_tool_problems(case, context, checks, answered, problems)
    # A Prompt in Python has no vars to give: its target's call says what is missing.
    if isinstance(target, PythonTarget) and not context.literal:
        at: Loc = ("target",) if case.target is not None else ()
        for message in parameter_problems(target, variables):
            problems.add(at, message)

    tags = _ordered_unique(context.tags, defaults.tags, case.tags)
    graded = checks or expected or attack_target or expected_behavior or (judge and judge.criteria)
    graded = graded or conversation.graded
    if REDTEAM_TAG in tags and not graded:
        problems.add(("tags",) if REDTEAM_TAG in case.tags else (), UNDETECTED)
    if problems.items or problems.without_context:
        raise InvalidCaseError(problems.items, tuple(problems.without_context))
    assert case_id is not None  # a missing id was reported above
    return TestCase(
        id=case_id,
        messages=messages,
        models=(target.id,) if target else tuple(case.models or context.models),
        params=reused.params(defaults.params, case.params),
        checks=tuple(checks),
        response_schema=schema,
        response_model=model,
        expected=expected,
        attack_target=attack_target,
        expected_behavior=expected_behavior,
        context=documents,
        judge=judge,
        tags=tags,
        repeat=case.repeat or context.repeat,
        source=locator.line(),
        must_pass=case.must_pass or not context.must_pass_tags.isdisjoint(tags),
        threshold=defaults.threshold if case.threshold is None else case.threshold,
        vars=variables,
        transform=transform,
        target=target,
        tools=tools_json(case.tools) if case.tools is not None else context.tools,
        tool_choice=choice_json(case.tool_choice) or context.tool_choice,
        suite=context.suite,
        variant=context.variant,
        turns=conversation.turns,
        simulate=conversation.simulate,
        conversation=conversation.grading,
    )


def _criteria_problems(
    judge: JudgeConfig | None, criteria: tuple[Criterion, ...]
) -> list[JudgeProblem]:
    """What is wrong with a turn's (or conversation's) criteria under the case's judge."""
    if judge is None:
        return []
    found = judge_problems(replace(judge, criteria=criteria))
    return [(loc, text) for loc, text in found if loc[:1] == ("criteria",)]


UNDETECTED = (
    "a red-team case (tagged `redteam`) needs a detector: with nothing graded it would pass, "
    "and count as an attack resisted. Add a check (canary_not_leaked, no_exfiltration, "
    "secret_not_leaked, tool_not_called...), an `attack_target` or a judge criterion"
)

_FILLED_BY_NAME = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True, slots=True)
class _Signature:
    """What a target function can be given by name, as the target's call binds it."""

    required: tuple[inspect.Parameter, ...]
    """The parameters without a default."""
    named: tuple[str, ...]
    """Every parameter filled by name, defaults or not."""
    takes_all: bool
    """A ``**kwargs``: it is given the case's variables too."""
    asks: bool
    """Whether it has parameters at all: one without any ignores the case on purpose."""


_ANY_SIGNATURE = _Signature((), ("query",), True, True)
"""A callable without a signature (a builtin): its call is given the query."""


def _signature(function: Callable[..., Any]) -> _Signature:
    """`function`'s signature as a target's call sees it, worked out once per function."""
    try:
        return _signature_of(function)  # not once for each row of a file
    except TypeError:  # an unhashable callable object
        return _signature_of.__wrapped__(function)


@lru_cache(maxsize=64)
def _signature_of(function: Callable[..., Any]) -> _Signature:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return _ANY_SIGNATURE
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return _Signature(
        required=tuple(
            p for p in parameters if p.default is inspect.Parameter.empty and p.kind not in variadic
        ),
        named=tuple(p.name for p in parameters if p.kind in _FILLED_BY_NAME),
        takes_all=any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters),
        asks=bool(parameters),
    )


def parameter_problems(target: PythonTarget, variables: Mapping[str, Any]) -> list[str]:
    """Each required parameter of a Python target that a case with `variables` cannot fill."""
    problems = []
    fillable = [*INPUTS, *variables]
    signature = _signature(target.function)
    for parameter in signature.required:
        if parameter.kind not in _FILLED_BY_NAME:
            problems.append(
                f"the target {target.name!r} has the positional-only parameter "
                f"{parameter.name!r}, which promptum cannot fill (it passes the case's inputs "
                "by name): make it an ordinary parameter, or give it a default"
            )
        elif parameter.name not in fillable:
            close = difflib.get_close_matches(parameter.name, fillable, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            problems.append(
                f"the target {target.name!r} needs the parameter {parameter.name!r}, which "
                f"this case cannot fill: it is none of {', '.join(INPUTS)} nor a variable of "
                f"the case ({', '.join(variables) or 'it has none'}).{hint} Give the case "
                f"`vars: {{{parameter.name}: ...}}` (or a data column of that name), or give "
                "the parameter a default"
            )
    if not problems and _given_nothing(signature, fillable, variables):
        problems.append(_given_nothing_problem(target, signature, fillable))
    return problems


def _given_nothing(
    signature: _Signature, fillable: list[str], variables: Mapping[str, Any]
) -> bool:
    """Whether the target's call would be given none of the case: it could not answer it."""
    if not signature.asks or set(signature.named) & set(fillable):
        return False
    return not (signature.takes_all and variables)


def _given_nothing_problem(target: PythonTarget, signature: _Signature, fillable: list[str]) -> str:
    close = [
        f"{name!r} (did you mean {match[0]!r}?)"
        for name in signature.named
        if (match := difflib.get_close_matches(name, fillable, n=1))
    ]
    hint = f"; its parameter {close[0]}" if close else ""
    return (
        f"the target {target.name!r} would be called with none of the case: it takes none of "
        f"{', '.join(INPUTS)} nor a variable of the case by name{hint}. Give it a `query` "
        "parameter (or `messages`, `vars`, `context`)"
    )


def _answered_by(
    case: CaseFields, context: SuiteContext, target: Target | None, problems: _Problems
) -> bool:
    """Whether a target answers the case; a case naming models and a target is refused."""
    # A Prompt in Python is given the session's models beside its own target: the target wins.
    if case.models is not None and case.target is not None and not context.literal:
        problems.add(
            ("target",),
            "a case's `target` answers it instead of a model, so its `models` would never "
            "be called: give the case either `models` or `target`",
        )
    return target is not None or case.target is not None


def _case_tool_problems(
    case: CaseFields,
    context: SuiteContext,
    checks: list[CheckDefinition],
    answered_by_target: bool,
    problems: _Problems,
) -> None:
    """Tool names in the case's checks and tool choice that name no tool the case offers."""
    own_tools = case.tools is not None
    tools = tools_json(case.tools) if case.tools is not None else context.tools
    # Checks written in Python (a `Prompt`, assert_prompt) without tools have no offered
    # tools to resolve against: they grade the calls the response made, as written.
    if tools is not None or not context.literal:
        _check_tool_problems(context, checks, tools, own_tools, answered_by_target, problems)
    if case.tool_choice is not None or own_tools or context.tools is None:
        choice = choice_json(case.tool_choice) or context.tool_choice
        found = tool_choice_problem(choice, tools)
        if found is not None:
            loc, message = found
            problems.add(("tool_choice", *loc) if case.tool_choice is not None else (), message)
    if (choice_json(case.tool_choice) or context.tool_choice) == "none" and not answered_by_target:
        for index, message in forbidden_call_problems(checks):
            problems.add(_check_loc(index, len(context.defaults.checks)), message)


def _check_loc(index: int, defaults: int) -> Loc:
    """Where check `index` of a case's checks (its suite's defaults first) is written."""
    return ("checks", index - defaults) if index >= defaults else ("defaults", "checks", index)


def _check_tool_problems(
    context: SuiteContext,
    checks: list[CheckDefinition],
    tools: tuple[dict[str, Any], ...] | None,
    own_tools: bool,
    answered_by_target: bool,
    problems: _Problems,
) -> None:
    """Tool names in the case's checks that name no tool it offers, and `tool_args` misfits."""
    defaults = len(context.defaults.checks)
    for index, check in enumerate(checks[defaults:]):
        if check.type not in NAMING_TOOLS:
            continue  # names no tool (most checks): nothing to look up
        for loc, message in tool_check_problems(check, tools, answered_by_target):
            problems.add(("checks", index, *loc), message)
    where: Loc = ("tools",) if own_tools else ()
    for index, check in enumerate(checks[:defaults]):
        if check.type not in NAMING_TOOLS:
            continue
        # Against the suite's own tools, the suite's defaults were checked once, at the suite,
        # but those filled in from the case's vars (a new check) are the case's own.
        refilled = check is not context.defaults.checks[index]
        if own_tools or context.tools is None or refilled:
            for _, message in tool_check_problems(check, tools, answered_by_target):
                problems.add(where, f"defaults.checks[{index}]: {message}")


def settings_problems(spec: SuiteSpec, context: SuiteContext) -> list[tuple[Loc, str]]:
    """What a suite's settings name that can never take effect, checked once per suite."""
    found: list[tuple[Loc, str]] = []
    if VARIABLE in spec.vars:
        found.append((("vars", VARIABLE), RESERVED))
    if spec.models is not None and spec.target is not None:
        found.append(
            (
                ("target",),
                "the suite's `target` answers its cases instead of a model, so `models` "
                "would never be called: remove one of them; to compare your application "
                "with models, give the model cases their own suite (or their own `models:`) "
                "and run both",
            )
        )
    if context.tools is not None:  # else each case checks them against its own tools
        target = context.target is not None or spec.target is not None
        for index, check in enumerate(context.defaults.checks):
            if has_template(check.value):
                continue  # filled in from each case's vars: checked with the case
            for loc, message in tool_check_problems(check, context.tools, target):
                found.append((("defaults", "checks", index, *loc), message))
        choice = tool_choice_problem(context.tool_choice, context.tools)
        if choice is not None:
            found.append((("tool_choice", *choice[0]), choice[1]))
    rows = [s for s in spec.cases_from if s.lower().endswith((".csv", ".jsonl"))]
    if spec.columns and not rows:
        found.append(
            (
                ("columns",),
                "`columns` turn cells of CSV or JSONL rows into checks, and this suite reads "
                "no such file: add it to `cases_from`, or write the checks in each case",
            )
        )
    return found


def unused_tag_problems(
    must_pass_tags: list[str], tags: Mapping[str, None]
) -> list[tuple[Loc, str]]:
    """Each `gate.must_pass_tags` tag that no case of the suite has: it would gate nothing."""
    found: list[tuple[Loc, str]] = []
    for index, tag in enumerate(must_pass_tags):
        if tag in tags:
            continue
        close = difflib.get_close_matches(tag, list(tags), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        listing = f" Tags: {', '.join(list(tags)[:20])}." if tags else " No case has a tag."
        found.append(
            (
                ("gate", "must_pass_tags", index),
                f"no case has the tag {tag!r}, so it makes no case must-pass.{hint}{listing}",
            )
        )
    return found
