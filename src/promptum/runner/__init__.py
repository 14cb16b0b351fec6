"""The runner: turns test cases into graded results (checks → field assertions → judge)."""

from promptum.runner._case import DEFAULT_THRESHOLD, GenerationParams, JudgeConfig, TestCase
from promptum.runner._grade import grade
from promptum.runner._journal import Journal, plan_fingerprint
from promptum.runner._judge import (
    JUDGE_PROMPT,
    JUDGE_VARIABLES,
    VERDICT_SCHEMA,
    judge_request,
    judge_response,
)
from promptum.runner._runner import (
    DEFAULT_CONCURRENCY,
    DEFAULT_GRACE_S,
    Runner,
    planned_count,
    request_for,
    result_key,
    status_of,
)
from promptum.runner._template import TemplateError, is_template, render

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_GRACE_S",
    "DEFAULT_THRESHOLD",
    "JUDGE_PROMPT",
    "JUDGE_VARIABLES",
    "VERDICT_SCHEMA",
    "GenerationParams",
    "Journal",
    "JudgeConfig",
    "Runner",
    "TemplateError",
    "TestCase",
    "grade",
    "is_template",
    "judge_request",
    "judge_response",
    "plan_fingerprint",
    "planned_count",
    "render",
    "request_for",
    "result_key",
    "status_of",
]
