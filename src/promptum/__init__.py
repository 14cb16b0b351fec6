"""promptum: test LLM prompts the way good teams test code."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptum.checks import (
        CheckDefinition,
        CheckInput,
        CheckResult,
        evaluate_checks,
        register_check,
    )
    from promptum.completion import Completion, ToolCall
    from promptum.errors import PluginError, PromptumError
    from promptum.evaluations import EvalResult, FieldEvalResult, evaluate, print_eval_result
    from promptum.grades import Grade
    from promptum.providers import register_provider
    from promptum.reporting import register_report
    from promptum.results import CaseResult, RunResult
    from promptum.session import Prompt, Session
    from promptum.target_result import TargetResult
    from promptum.validation import (
        AllOf,
        AnyOf,
        Contains,
        ExactMatch,
        IsValidJson,
        JsonSchema,
        Length,
        Not,
        NotContains,
        NotRegex,
        Regex,
        Validator,
    )

    __version__: str

# Every name is imported on first use: `import promptum` comes first in every command, and
# pydantic, asyncio and importlib.metadata would double the time `promptum --help` takes.
_LAZY = {
    "AllOf": "promptum.validation",
    "AnyOf": "promptum.validation",
    "CaseResult": "promptum.results",
    "CheckDefinition": "promptum.checks",
    "CheckInput": "promptum.checks",
    "CheckResult": "promptum.checks",
    "Completion": "promptum.completion",
    "Contains": "promptum.validation",
    "EvalResult": "promptum.evaluations",
    "ExactMatch": "promptum.validation",
    "FieldEvalResult": "promptum.evaluations",
    "Grade": "promptum.grades",
    "IsValidJson": "promptum.validation",
    "JsonSchema": "promptum.validation",
    "Length": "promptum.validation",
    "Not": "promptum.validation",
    "NotContains": "promptum.validation",
    "NotRegex": "promptum.validation",
    "PluginError": "promptum.errors",
    "Prompt": "promptum.session",
    "PromptumError": "promptum.errors",
    "Regex": "promptum.validation",
    "RunResult": "promptum.results",
    "Session": "promptum.session",
    "TargetResult": "promptum.target_result",
    "ToolCall": "promptum.completion",
    "Validator": "promptum.validation",
    "evaluate": "promptum.evaluations",
    "evaluate_checks": "promptum.checks",
    "print_eval_result": "promptum.evaluations",
    "register_check": "promptum.checks",
    "register_provider": "promptum.providers",
    "register_report": "promptum.reporting",
}


def __getattr__(name: str) -> Any:
    """Import a public name when first used, and keep it."""
    if name == "__version__":
        from promptum._version import promptum_version  # not at start-up: `import promptum`

        value: Any = promptum_version()
    elif name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'promptum' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "AllOf",
    "AnyOf",
    "CaseResult",
    "CheckDefinition",
    "CheckInput",
    "CheckResult",
    "Completion",
    "Contains",
    "EvalResult",
    "ExactMatch",
    "FieldEvalResult",
    "Grade",
    "IsValidJson",
    "JsonSchema",
    "Length",
    "Not",
    "NotContains",
    "NotRegex",
    "PluginError",
    "Prompt",
    "PromptumError",
    "Regex",
    "RunResult",
    "Session",
    "TargetResult",
    "ToolCall",
    "Validator",
    "__version__",
    "evaluate",
    "evaluate_checks",
    "print_eval_result",
    "register_check",
    "register_provider",
    "register_report",
]
