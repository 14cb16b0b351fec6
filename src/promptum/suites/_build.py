"""Build a `TestCase` from a validated case, merging the suite's defaults and rendering vars.

`build_case` runs a case through its stages in order (identity, messages, expectations,
judge, output, target, checks, conversation, tools, red team), each a function returning
its value and its problems: a case's problems are reported together, in that order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptum.cases import Grading, JudgeConfig, TestCase
from promptum.checks import CheckDefinition
from promptum.foundations.suggestions import did_you_mean
from promptum.suites._build_checks import case_checks
from promptum.suites._build_conversation import case_conversation
from promptum.suites._build_judge import case_judge
from promptum.suites._build_messages import prompted
from promptum.suites._build_output import (
    Expectations,
    assertions_found,
    expectations,
    output,
)
from promptum.suites._build_render import CaseScope, Problems
from promptum.suites._build_tools import case_target, case_tools
from promptum.suites._canary import RESERVED, VARIABLE, Canary
from promptum.suites._format import CaseFields, SuiteSpec
from promptum.suites._locate import Loc, Locator, format_loc, problem
from promptum.suites._missing_context import CASE_WITHOUT_CONTEXT
from promptum.suites._reused import has_template
from promptum.suites._suite_context import SuiteContext
from promptum.suites._tools import tool_check_problems, tool_choice_problem
from promptum.suites._turns import Conversation
from promptum.values.asr import REDTEAM_TAG
from promptum.values.case_result import namespaced


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


def build_case(
    case: CaseFields, locator: Locator, default_id: str | None, context: SuiteContext
) -> TestCase:
    """Turn one validated case into a TestCase; raise InvalidCaseError listing what is wrong."""
    # Each stage returns its value and its problems, added up here in stage order.
    (case_id, scope), problems = _identity(case, default_id, context)
    sent, found = prompted(case, context, scope)
    problems += found
    expects, found = expectations(case, context.defaults, sent.scope)
    problems += found
    grounded = sent.documents is not None
    judge, found = case_judge(case, context.judge, sent.scope, expects.behavior, grounded)
    problems += found
    shape, found = output(case, context.defaults, context.folder)
    problems += found
    target, found = case_target(case, context)
    problems += found
    # A target's dict answer is structured output even without a response_model.
    needs_schema = target is None and case.target is None
    problems += assertions_found(expects, shape, needs_schema)
    checks, found = case_checks(case, context, sent, shape.transform)
    problems += found
    conversation, found = case_conversation(
        case, context, sent, judge, shape, needs_schema, locator.line
    )
    problems += found
    offered, found = case_tools(case, context, target, checks, sent.scope.variables)
    problems += found
    tags, found = _tags(case, context, _graded(checks, expects, judge, conversation))
    problems += found
    if problems or sent.lacking:
        raise InvalidCaseError(_all_located(locator, problems), tuple(sent.lacking))
    assert case_id is not None  # a missing id was reported above
    defaults = context.defaults
    return TestCase(
        id=case_id,
        messages=sent.messages,
        models=(target.id,) if target else tuple(case.models or context.models),
        params=context.reused.params(defaults.params, case.params),
        grading=Grading(
            checks=tuple(checks),
            default_checks=len(defaults.checks),
            expected=expects.expected,
            attack_target=expects.attack_target,
            expected_behavior=expects.behavior,
            judge=judge,
            threshold=defaults.threshold if case.threshold is None else case.threshold,
            transform=shape.transform,
            conversation=conversation.grading,
        ),
        response_schema=shape.schema,
        response_model=shape.model,
        context=sent.documents,
        tags=tags,
        repeat=case.repeat or context.repeat,
        source=locator.line(),
        must_pass=case.must_pass or not context.must_pass_tags.isdisjoint(tags),
        vars=sent.scope.variables,
        target=target,
        tools=offered.tools,
        tool_choice=offered.choice,
        suite=context.suite,
        variant=context.variant,
        turns=conversation.turns,
        simulate=conversation.simulate,
    )


def _all_located(locator: Locator, problems: Problems) -> list[str]:
    """The case's problems, as the error report lists them."""
    return [_located(locator, loc, message) for loc, message in problems]


def _located(locator: Locator, loc: Loc, message: str) -> str:
    """One problem of the case, as the error report lists it."""
    if loc[:1] == ("defaults",):
        # The suite's defaults, filled in with this case's vars: the case is where it fails.
        loc, message = (), f"{format_loc(loc)}: {message}"
    return problem(locator, loc, message)


def _identity(
    case: CaseFields, default_id: str | None, context: SuiteContext
) -> tuple[tuple[str | None, CaseScope], Problems]:
    """The case's id, and the scope its templates render with: its vars and its canary."""
    found: Problems = []
    case_id = case.id or default_id
    if case_id is None:
        found.append((("id",), "every test case needs an `id` (a short unique name)"))
    if VARIABLE in case.vars:  # the suite's own `vars` are checked once, with its settings
        found.append((("vars", VARIABLE), RESERVED))
    canary = Canary(namespaced(context.suite, case_id or ""))
    scope = CaseScope({**context.variables, **case.vars}, canary, context.literal)
    return (case_id, scope), found


def _graded(
    checks: list[CheckDefinition],
    expects: Expectations,
    judge: JudgeConfig | None,
    conversation: Conversation,
) -> bool:
    """Whether anything grades the case's response: else it passes whatever it says."""
    if checks or expects.expected or expects.attack_target or expects.behavior:
        return True
    return bool(judge and judge.criteria) or conversation.graded


def _tags(
    case: CaseFields, context: SuiteContext, graded: bool
) -> tuple[tuple[str, ...], Problems]:
    """The case's tags after its suite's; a red-team case must be graded by something."""
    found: Problems = []
    tags = tuple(dict.fromkeys((*context.tags, *context.defaults.tags, *case.tags)))
    if REDTEAM_TAG in tags and not graded:
        found.append((("tags",) if REDTEAM_TAG in case.tags else (), UNDETECTED))
    return tags, found


UNDETECTED = (
    "a red-team case (tagged `redteam`) needs a detector: with nothing graded it would pass, "
    "and count as an attack resisted. Add a check (canary_not_leaked, no_exfiltration, "
    "secret_not_leaked, tool_not_called...), an `attack_target` or a judge criterion"
)


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
        found += _tool_setting_problems(spec, context, context.tools)
    if spec.columns and not _reads_rows(spec):
        found.append(
            (
                ("columns",),
                "`columns` turn cells of CSV or JSONL rows into checks, and this suite reads "
                "no such file: add it to `cases_from`, or write the checks in each case",
            )
        )
    return found


def _tool_setting_problems(
    spec: SuiteSpec, context: SuiteContext, tools: tuple[dict[str, Any], ...]
) -> list[tuple[Loc, str]]:
    """What the suite's default checks and `tool_choice` name that its tools do not have."""
    found: list[tuple[Loc, str]] = []
    target = context.target is not None or spec.target is not None
    for index, check in enumerate(context.defaults.checks):
        if has_template(check.value):
            continue  # filled in from each case's vars: checked with the case
        for loc, message in tool_check_problems(check, tools, target):
            found.append((("defaults", "checks", index, *loc), message))
    choice = tool_choice_problem(context.tool_choice, tools)
    if choice is not None:
        found.append((("tool_choice", *choice[0]), choice[1]))
    return found


def _reads_rows(spec: SuiteSpec) -> bool:
    """Whether the suite reads a CSV or JSONL file of rows (`cases_from`)."""
    return any(s.lower().endswith((".csv", ".jsonl")) for s in spec.cases_from)


def unused_tag_problems(
    must_pass_tags: list[str], tags: Mapping[str, None]
) -> list[tuple[Loc, str]]:
    """Each `gate.must_pass_tags` tag that no case of the suite has: it would gate nothing."""
    found: list[tuple[Loc, str]] = []
    for index, tag in enumerate(must_pass_tags):
        if tag in tags:
            continue
        hint = did_you_mean(tag, list(tags))
        listing = f" Tags: {', '.join(list(tags)[:20])}." if tags else " No case has a tag."
        found.append(
            (
                ("gate", "must_pass_tags", index),
                f"no case has the tag {tag!r}, so it makes no case must-pass.{hint}{listing}",
            )
        )
    return found
