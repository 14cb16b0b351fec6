"""Realistic runs for the store, compare and viewer tests, built the way the runner builds
them: real checks evaluated on the response, field assertions, judge verdicts, errors,
repeats with flaky cases, several models, hostile text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from promptum.checks import CheckDefinition, evaluate_checks
from promptum.evaluations import evaluate
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, JudgeVerdict, Message, RunResult

LOCAL, GPT = "local/smollm2", "openai/gpt-4o-mini"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
SCRIPT = "<script>alert(1)</script>"
CHECKS = [
    CheckDefinition(type="contains", value="Paris"),
    CheckDefinition(type="max_length", value=200),
]

Outcomes = Mapping[tuple[str, str], Sequence[str]]
"""(case id, model) -> the status of each repeat: "pass", "fail" or "error"."""


def make_result(
    case_id: str, model: str, status: str, repeat: int = 1, *, latency: float = 400.0
) -> CaseResult:
    """A result whose status comes from really evaluating its checks and assertions."""
    messages = [
        Message(role="system", content="You are terse."),
        Message(role="user", content=f"Question for {case_id}: what is the capital of France?"),
    ]
    cost = 0.0 if model.startswith("local/") else 0.0002
    tags = ["geo", case_id.split("-")[0]]
    if status == "error":
        completion = Completion(model=model, error="HTTP 503: upstream overloaded", attempts=3)
        return CaseResult(
            case_id=case_id, model=model, repeat=repeat, status="error",
            messages=messages, completion=completion, tags=tags, source="suites/geo.yaml:3",
        )  # fmt: skip
    if status == "pass":
        text, output = f"The capital of France is Paris. ({case_id} r{repeat})", {"city": "Paris"}
    else:
        text, output = f"It is Lyon. {SCRIPT} ({case_id} r{repeat})", {"city": "Lyon"}
    completion = Completion(
        text=text, output=output, model=model, latency_ms=latency + repeat,
        input_tokens=20, output_tokens=9, cost_usd=cost,
    )  # fmt: skip
    checks = evaluate_checks(CHECKS, completion)
    assertions = evaluate(output, {"city": "Paris"})
    score = 0.9 if status == "pass" else 0.2
    verdict = JudgeVerdict(model=LOCAL, score=score, passed=score >= 0.7, reason="graded")
    passed = all(c.passed for c in checks) and assertions.passed and verdict.passed
    assert passed == (status == "pass")
    return CaseResult(
        case_id=case_id, model=model, repeat=repeat, status="pass" if passed else "fail",
        messages=messages, completion=completion, check_results=checks,
        eval_result=assertions, judge=verdict, expected_behavior="Names Paris.",
        tags=tags, source="suites/geo.yaml:3",
    )  # fmt: skip


def make_run(
    run_id: str,
    outcomes: Outcomes,
    *,
    started: datetime = T0,
    suite: str = "geo",
    config: dict[str, Any] | None = None,
    latency: float = 400.0,
) -> RunResult:
    """A finished run with one result per (case, model, repeat) in `outcomes`."""
    results = [
        make_result(case_id, model, status, repeat, latency=latency)
        for (case_id, model), statuses in outcomes.items()
        for repeat, status in enumerate(statuses, start=1)
    ]
    models = list(dict.fromkeys(model for _, model in outcomes))
    return RunResult(
        run_id=run_id,
        suite=suite,
        models=models,
        started_at=started,
        finished_at=started + timedelta(seconds=42),
        config=config if config is not None else {"suites": ["suites/geo.yaml"]},
        results=results,
    )


def mixed_outcomes(cases: int = 6, repeats: int = 3) -> dict[tuple[str, str], list[str]]:
    """Two models; passes, failures, an error and flaky cases (neither always pass nor fail)."""
    outcomes: dict[tuple[str, str], list[str]] = {}
    for index in range(cases):
        case_id = f"capital-{index}"
        outcomes[case_id, LOCAL] = (
            ["pass"] * repeats if index % 3 == 0
            else ["fail"] * repeats if index % 3 == 1
            else ["pass", "fail", "pass"][:repeats]
        )  # fmt: skip
        outcomes[case_id, GPT] = ["error"] if index == cases - 1 else ["pass"] * repeats
    return outcomes
