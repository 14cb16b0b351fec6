"""The runner: turns test cases into graded results (checks → field assertions → judge).

Each name is imported from its module on first use: the suite loader needs `TestCase` and
its settings, not the asyncio machinery that runs them.
"""

from typing import TYPE_CHECKING

from promptum.foundations.lazy import lazy_exports

# Imported from their modules on first use (promptum.foundations.lazy). The names imported `as`
# themselves and not in __all__ are shared with the suites, the session and the pytest plugin,
# not documented for users: served on use, never kept here.
if TYPE_CHECKING:
    from promptum.cases import (
        DEFAULT_THRESHOLD,
        FAITHFULNESS_PROMPT,
        JUDGE_PROMPT,
        JUDGE_VARIABLES,
        ConversationGrading,
        Criterion,
        GenerationParams,
        JudgeConfig,
        Simulation,
        TestCase,
        Turn,
    )
    from promptum.cases import GOAL_REACHED as GOAL_REACHED
    from promptum.cases import role_table as role_table
    from promptum.runner._executor import Execution, Executor
    from promptum.runner._grade import DEFAULT_GRADE_TIMEOUT_S, grade, grade_async
    from promptum.runner._journal import Journal, plan_fingerprint
    from promptum.runner._judge import VERDICT_SCHEMA, judge_request, judge_response
    from promptum.runner._judge import judge_grades as judge_grades
    from promptum.runner._plan import Survey as Survey
    from promptum.runner._response import status_of
    from promptum.runner._runner import (
        DEFAULT_CONCURRENCY,
        DEFAULT_GRACE_S,
        Runner,
        planned_count,
        request_for,
        result_key,
        run_unit,
    )
    from promptum.runner._ungraded import with_ungraded as with_ungraded
    from promptum.templating import TemplateError, is_template, render

__getattr__ = lazy_exports(__name__)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_GRACE_S",
    "DEFAULT_GRADE_TIMEOUT_S",
    "DEFAULT_THRESHOLD",
    "FAITHFULNESS_PROMPT",
    "JUDGE_PROMPT",
    "JUDGE_VARIABLES",
    "VERDICT_SCHEMA",
    "ConversationGrading",
    "Criterion",
    "Execution",
    "Executor",
    "GenerationParams",
    "Journal",
    "JudgeConfig",
    "Runner",
    "Simulation",
    "TemplateError",
    "TestCase",
    "Turn",
    "grade",
    "grade_async",
    "is_template",
    "judge_request",
    "judge_response",
    "plan_fingerprint",
    "planned_count",
    "render",
    "request_for",
    "result_key",
    "run_unit",
    "status_of",
]
