"""The conversation stage of building a case: its turns, simulated user and their grades."""

from __future__ import annotations

from collections.abc import Callable

from promptum.cases import JudgeConfig
from promptum.suites._build_checks import one_check
from promptum.suites._build_judge import criteria_problems
from promptum.suites._build_messages import Prompted
from promptum.suites._build_output import Output
from promptum.suites._build_parts import PartBuilder, parts_problem
from promptum.suites._build_render import Problems, filled_in
from promptum.suites._format import CaseFields
from promptum.suites._locate import Loc
from promptum.suites._suite_context import SuiteContext
from promptum.suites._turns import (
    NO_CONVERSATION,
    BuildHooks,
    Conversation,
    conversation_of,
    is_conversation,
    structure_problems,
)


def case_conversation(
    case: CaseFields,
    context: SuiteContext,
    prompted: Prompted,
    judge: JudgeConfig | None,
    shape: Output,
    needs_schema: bool,
    line: Callable[[Loc], str],
) -> tuple[Conversation, Problems]:
    """The case's conversation (none for one request), and what its keys may not be given.

    `needs_schema`: no target answers the case, so field assertions need a `response_model`;
    `line` says where a path within the case is written.
    """
    found: Problems = []
    for loc, message in structure_problems(case, context.variant):
        found.append((loc, message))
    if not is_conversation(case) and case.conversation is None:
        return NO_CONVERSATION, found  # most cases are one request: no hooks made for them
    rendered = prompted.scope.renderer(found)
    hooks = BuildHooks(
        lambda loc, message: found.append((loc, message)),
        rendered,
        prompted.scope.scope,
        lambda check, loc: one_check(check, loc, context, prompted, found),
        lambda value, loc: filled_in(value, loc, rendered),
        lambda criteria: criteria_problems(judge, criteria),
        line,
        context.literal,
        needs_schema and not shape.written,
        lambda query, at: PartBuilder(context, rendered, found).of_query(query, at) or (),
    )
    conversation = conversation_of(case, judge, shape.fields, hooks)
    for index, turn in enumerate(conversation.turns):
        if (problem := parts_problem(case, context, turn.parts)) is not None:
            found.append((("turns", index, "query"), problem))
    return conversation, found
