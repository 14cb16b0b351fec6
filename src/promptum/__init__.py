"""promptum: test LLM prompts the way good teams test code."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptum.checks import (
        CheckDefinition,
        CheckInput,
        CheckResult,
        evaluate_checks,
        register_check,
    )
    from promptum.errors import PluginError, PromptumError
    from promptum.evaluations import EvalResult, FieldEvalResult, evaluate, print_eval_result
    from promptum.providers import register_provider
    from promptum.reporting import register_report
    from promptum.session import Prompt, Session
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
    from promptum.values.completion import Completion, ToolCall
    from promptum.values.grade import Grade
    from promptum.values.run_result import CaseResult, RunResult
    from promptum.values.target_result import TargetResult

    __version__: str


# Every name is imported on first use: `import promptum` comes first in every command, and
# pydantic, asyncio and importlib.metadata would double the time `promptum --help` takes.
def __getattr__(name: str) -> Any:
    """Import a public name when first used, and keep it (`promptum.foundations.lazy`)."""
    from promptum.foundations.lazy import (
        lazy_export,  # not at start-up either: `promptum --help` needs none
    )

    return lazy_export(
        __name__, name, {"__version__": "promptum.foundations.version:promptum_version"}
    )


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
