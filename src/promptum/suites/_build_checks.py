"""The checks stage of building a case: its suite's default checks, then its own, filled in.

Each check's templates are rendered with the case's vars, its expressions are checked for
the vars they read, and a `canary_not_leaked` is bound to the case's canary.
"""

from __future__ import annotations

from promptum.checks import CheckDefinition, expressions_of
from promptum.suites._build_messages import Prompted
from promptum.suites._build_render import Problems, rendered_check
from promptum.suites._canary import NOT_PLANTED, NOT_RENDERED, with_canary
from promptum.suites._expressions import expression_problems
from promptum.suites._format import CaseFields
from promptum.suites._locate import Loc
from promptum.suites._suite_context import SuiteContext


def check_loc(index: int, defaults: int) -> Loc:
    """Where check `index` of a case's checks (its suite's defaults first) is written."""
    return ("checks", index - defaults) if index >= defaults else ("defaults", "checks", index)


def case_checks(
    case: CaseFields, context: SuiteContext, prompted: Prompted, transform: str | None
) -> tuple[list[CheckDefinition], Problems]:
    """The case's checks, its suite's defaults first, filled in and bound to its canary."""
    found: Problems = []
    plain = [context.reused.plain(check) for check in context.defaults.checks]
    checks = _filled(case, context, prompted, plain, found)
    # Most cases have no expression: their checks are looked at once, nothing located.
    # (A plain default check is itself in every case, and has none.)
    looked_at = checks[len(plain) :]
    looked_at += (check for check, same in zip(checks, plain, strict=False) if not same)
    if transform is not None or any(expressions_of(check.compiled) for check in looked_at):
        found += _expressions_located(case, context, checks, transform, prompted)
    checks, unplanted = with_canary(
        checks, prompted.scope.canary, prompted.messages, prompted.documents, context.checks
    )
    for index in unplanted:
        found.append(
            (check_loc(index, len(plain)), NOT_RENDERED if context.literal else NOT_PLANTED)
        )
    return checks, found


def _expressions_located(
    case: CaseFields,
    context: SuiteContext,
    checks: list[CheckDefinition],
    transform: str | None,
    prompted: Prompted,
) -> Problems:
    """What the checks' and the transform's expressions read that the case's vars lack."""
    at_checks: list[Loc] = [("defaults", "checks", i) for i in range(len(context.defaults.checks))]
    at_checks += [("checks", i) for i in range(len(case.checks))]
    at_transform: Loc = ("transform",) if case.transform else ("defaults", "transform")
    return expression_problems(
        zip(at_checks, checks, strict=True),
        None if transform is None else (at_transform, transform),
        prompted.scope.variables,
    )


def _filled(
    case: CaseFields, context: SuiteContext, prompted: Prompted, plain: list[bool], found: Problems
) -> list[CheckDefinition]:
    """The default checks (a plain one as it is) and the case's own, templates filled in."""
    rendered = prompted.scope.renderer(found)
    table = context.checks
    return [
        *(
            check
            if plain[index]
            else rendered_check(check, ("defaults", "checks", index), rendered, found, table)
            for index, check in enumerate(context.defaults.checks)
        ),
        *(
            rendered_check(check, ("checks", index), rendered, found, table)
            for index, check in enumerate(case.checks)
        ),
    ]


def one_check(
    check: CheckDefinition, loc: Loc, context: SuiteContext, prompted: Prompted, found: Problems
) -> CheckDefinition:
    """One check of a conversation (a turn's, a stop condition), as the case's are built."""
    filled = rendered_check(check, loc, prompted.scope.renderer(found), found, context.checks)
    for expression_loc, message in expression_problems(
        [(loc, filled)], None, prompted.scope.variables
    ):
        found.append((expression_loc, message))
    scope = prompted.scope
    bound, unplanted = with_canary(
        [filled], scope.canary, prompted.messages, prompted.documents, context.checks
    )
    if unplanted:
        found.append((loc, NOT_RENDERED if context.literal else NOT_PLANTED))
    return bound[0]
