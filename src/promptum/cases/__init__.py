"""What a test case is: `TestCase`, its parts, the roles each field declares, and the row copies.

Below the runner and the suites, which both read cases; above the checks and the validators,
which a case holds compiled. Each field of a case declares its roles once (`_roles`): the
resume fingerprint, the per-row copy and the conversation's per-turn case are read from them.
"""

from promptum.cases._case import TestCase
from promptum.cases._copied_row import ROW_FIELDS, CopiedRow
from promptum.cases._copied_run import RUN_KEYS, CopiedRun, own_text
from promptum.cases._hashed import as_json, check_data, messages_text
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

__all__ = [
    "DEFAULT_SAMPLE_TEMPERATURE",
    "DEFAULT_THRESHOLD",
    "GOAL_REACHED",
    "ROW_FIELDS",
    "RUN_KEYS",
    "UNSET",
    "ConversationGrading",
    "CopiedRow",
    "CopiedRun",
    "Criterion",
    "GenerationParams",
    "HashedField",
    "JudgeConfig",
    "Role",
    "Simulation",
    "TestCase",
    "Turn",
    "When",
    "as_json",
    "check_data",
    "messages_text",
    "own_text",
    "role_table",
]
