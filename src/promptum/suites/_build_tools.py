"""The target and tools stages of building a case: what answers it, and what it may call.

The target is resolved early (field assertions need to know whether one answers); its
tools, tool choice and the target's parameters are checked once the case's checks are built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from promptum.checks import CheckDefinition
from promptum.providers import PythonTarget, Target
from promptum.suites._build_checks import check_loc
from promptum.suites._build_render import Problems
from promptum.suites._format import CaseFields
from promptum.suites._locate import Loc
from promptum.suites._suite_context import SuiteContext
from promptum.suites._target import suite_target
from promptum.suites._target_parameters import parameter_problems
from promptum.suites._tools import (
    NAMING_TOOLS,
    choice_json,
    forbidden_call_problems,
    tool_check_problems,
    tool_choice_problem,
    tools_json,
)


def case_target(case: CaseFields, context: SuiteContext) -> tuple[Target | None, Problems]:
    """The case's own target, else its suite's (unless the case names models), or none."""
    found: Problems = []
    target = context.target if case.models is None else None
    if case.target is not None:
        try:
            target = suite_target(case.target, context.folder, context.where)
        except ValueError as exc:
            found.append((("target",), str(exc)))
    return target, found


class Offered(NamedTuple):
    """The tools a case offers the model, and how it may choose among them."""

    tools: tuple[dict[str, Any], ...] | None
    choice: str | dict[str, Any] | None


def case_tools(
    case: CaseFields,
    context: SuiteContext,
    target: Target | None,
    checks: Sequence[CheckDefinition],
    variables: Mapping[str, Any],
) -> tuple[Offered, Problems]:
    """The case's tools and tool choice, checked against its checks and its target."""
    found: Problems = []
    offered = Offered(
        tools_json(case.tools) if case.tools is not None else context.tools,
        choice_json(case.tool_choice) or context.tool_choice,
    )
    answered = _answered_by(case, context, target, found)
    # Checks written in Python (a `Prompt`, assert_prompt) without tools have no offered
    # tools to resolve against: they grade the calls the response made, as written.
    if offered.tools is not None or not context.literal:
        _check_tool_problems(case, context, checks, offered.tools, answered, found)
    _choice_problems(case, context, checks, offered, answered, found)
    # A Prompt in Python has no vars to give: its target's call says what is missing.
    if isinstance(target, PythonTarget) and not context.literal:
        at: Loc = ("target",) if case.target is not None else ()
        for message in parameter_problems(target, variables):
            found.append((at, message))
    return offered, found


def _answered_by(
    case: CaseFields, context: SuiteContext, target: Target | None, found: Problems
) -> bool:
    """Whether a target answers the case; a case naming models and a target is refused."""
    # A Prompt in Python is given the session's models beside its own target: the target wins.
    if case.models is not None and case.target is not None and not context.literal:
        found.append(
            (
                ("target",),
                "a case's `target` answers it instead of a model, so its `models` would never "
                "be called: give the case either `models` or `target`",
            )
        )
    return target is not None or case.target is not None


def _choice_problems(
    case: CaseFields,
    context: SuiteContext,
    checks: Sequence[CheckDefinition],
    offered: Offered,
    answered_by_target: bool,
    found: Problems,
) -> None:
    """A tool choice naming no offered tool, and tool checks that `tool_choice: none` forbids."""
    own_tools = case.tools is not None
    if case.tool_choice is not None or own_tools or context.tools is None:
        problem = tool_choice_problem(offered.choice, offered.tools)
        if problem is not None:
            loc, message = problem
            found.append((("tool_choice", *loc) if case.tool_choice is not None else (), message))
    if offered.choice == "none" and not answered_by_target:
        for index, message in forbidden_call_problems(checks):
            found.append((check_loc(index, len(context.defaults.checks)), message))


def _check_tool_problems(
    case: CaseFields,
    context: SuiteContext,
    checks: Sequence[CheckDefinition],
    tools: tuple[dict[str, Any], ...] | None,
    answered_by_target: bool,
    found: Problems,
) -> None:
    """Tool names in the case's checks that name no tool it offers, and `tool_args` misfits."""
    defaults = len(context.defaults.checks)
    for index, check in enumerate(checks[defaults:]):
        if check.type not in NAMING_TOOLS:
            continue  # names no tool (most checks): nothing to look up
        for loc, message in tool_check_problems(check, tools, answered_by_target):
            found.append((("checks", index, *loc), message))
    own_tools = case.tools is not None
    where: Loc = ("tools",) if own_tools else ()
    for index, check in enumerate(checks[:defaults]):
        if check.type not in NAMING_TOOLS:
            continue
        # Against the suite's own tools, the suite's defaults were checked once, at the suite,
        # but those filled in from the case's vars (a new check) are the case's own.
        refilled = check is not context.defaults.checks[index]
        if own_tools or context.tools is None or refilled:
            for _, message in tool_check_problems(check, tools, answered_by_target):
                found.append((where, f"defaults.checks[{index}]: {message}"))
