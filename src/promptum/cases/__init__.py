"""What a test case is: `TestCase`, its `Grading` and other parts, roles, and the case store.

Below the runner and the suites, which both read cases; above the checks and the validators,
which a case holds compiled. Each field of a case declares its roles once (`_roles`): the
resume fingerprint, the per-row copy and the conversation's per-turn case are read from them.
What a case's judge grades (`_judging`) and whether anything grades it (`_graded`) are said
here too: loading and the run both read them.
"""

from promptum.cases._case import TestCase
from promptum.cases._graded import grades_something, ungraded_fix
from promptum.cases._grading import Grading
from promptum.cases._hashed import as_json, check_data, messages_text
from promptum.cases._judging import (
    BUILTIN_PROMPTS,
    DEFAULT_CRITERION,
    FAITHFULNESS_PROMPT,
    JUDGE_PROMPT,
    JUDGE_VARIABLES,
    is_prompt_name,
    join_context,
    judge_template,
    judged_criteria,
    missing_context,
    prompt_uses,
)
from promptum.cases._parts import (
    DEFAULT_SAMPLE_TEMPERATURE,
    DEFAULT_THRESHOLD,
    GOAL_REACHED,
    ConversationGrading,
    Criterion,
    GenerationParams,
    JudgeConfig,
    Simulation,
    Turn,
)
from promptum.cases._roles import UNSET, HashedField, Role, When, role_table
from promptum.cases._store import Cases, CaseStore, Change, Mapped, Selected
from promptum.cases._store_held import HeldCases
from promptum.cases._store_rows import (
    RUN_KEYS,
    CopiedRow,
    CopiedRun,
    PlanItem,
    Prototype,
    RowCheck,
    own_text,
)

__all__ = [
    "BUILTIN_PROMPTS",
    "DEFAULT_CRITERION",
    "DEFAULT_SAMPLE_TEMPERATURE",
    "DEFAULT_THRESHOLD",
    "FAITHFULNESS_PROMPT",
    "GOAL_REACHED",
    "JUDGE_PROMPT",
    "JUDGE_VARIABLES",
    "RUN_KEYS",
    "UNSET",
    "CaseStore",
    "Cases",
    "Change",
    "ConversationGrading",
    "CopiedRow",
    "CopiedRun",
    "Criterion",
    "GenerationParams",
    "Grading",
    "HashedField",
    "HeldCases",
    "JudgeConfig",
    "Mapped",
    "PlanItem",
    "Prototype",
    "Role",
    "RowCheck",
    "Selected",
    "Simulation",
    "TestCase",
    "Turn",
    "When",
    "as_json",
    "check_data",
    "grades_something",
    "is_prompt_name",
    "join_context",
    "judge_template",
    "judged_criteria",
    "messages_text",
    "missing_context",
    "own_text",
    "prompt_uses",
    "role_table",
    "ungraded_fix",
]
