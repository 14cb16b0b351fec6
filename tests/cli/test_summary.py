"""The end-of-run summary: per-model figures, flaky cases and failures with reasons."""

from __future__ import annotations

import io

from rich.console import Console

from promptum.checks import CheckDefinition, evaluate_checks
from promptum.cli._console import print_summary
from promptum.values.completion import Completion
from promptum.values.documented_views import judge_grade
from promptum.values.run_result import CaseResult, JudgeVerdict, RunResult

CHECK = CheckDefinition(type="contains", value="4")


def result(text: str, repeat: int) -> CaseResult:
    completion = Completion(text=text, model="local/smollm2", latency_ms=10.0)
    checks = evaluate_checks([CHECK], completion)
    status = "pass" if all(c.passed for c in checks) else "fail"
    return CaseResult(
        case_id="math",
        model="local/smollm2",
        repeat=repeat,
        status=status,
        completion=completion,
        check_results=checks,
    )


def summary(run: RunResult) -> str:
    out = io.StringIO()
    print_summary(Console(file=out, width=120, color_system=None), run)
    return out.getvalue()


def test_flaky_cases_are_listed_with_their_pass_count() -> None:
    texts = ["4", "2 + 2 = 4", "five"]
    run = RunResult(
        run_id="r",
        models=["local/smollm2"],
        results=[result(t, i) for i, t in enumerate(texts, start=1)],
    )
    text = summary(run)
    assert "Flaky cases (1)" in text
    assert "FLAKY math (local/smollm2): passed 2 of 3 repeats" in text
    assert "FAIL math (local/smollm2, repeat 3)" in text
    assert "local/smollm2 · Checks: 2/3 passed" in text


def test_a_steady_run_lists_no_flaky_cases() -> None:
    run = RunResult(run_id="r", models=["local/smollm2"], results=[result("4", 0)])
    text = summary(run)
    assert "Flaky" not in text
    assert "1 result: all passed" in text


def test_a_judge_error_is_listed_as_an_error_with_its_reason() -> None:
    verdict = JudgeVerdict(model="dead/m", error="connection failed")
    base = result("4", 0)
    judged = base.model_copy(
        update={"status": "error", "grades": [*base.grades, judge_grade(verdict)]}
    )
    text = summary(RunResult(run_id="r", models=["local/smollm2"], results=[judged]))
    assert "Failures (1)" in text
    assert "ERROR math (local/smollm2)" in text
    assert "- judge error: connection failed" in text


def test_answers_from_the_cache_are_counted() -> None:
    cached = result("4", 1).model_copy(
        update={"completion": Completion(text="4", model="local/smollm2", cached=True)}
    )
    text = summary(
        RunResult(run_id="r", models=["local/smollm2"], results=[result("4", 0), cached])
    )
    assert "1 of 2 answers from the cache" in text
    assert "from the cache" not in summary(
        RunResult(run_id="r", models=["local/smollm2"], results=[result("4", 0)])
    )


def test_an_interrupted_run_is_not_called_all_passed() -> None:
    empty = RunResult(run_id="r", models=["local/smollm2"], complete=False)
    assert "0 results: nothing finished (interrupted)" in summary(empty)
    partial = RunResult(
        run_id="r", models=["local/smollm2"], results=[result("4", 0)], complete=False
    )
    assert "1 result: pass rate 100% (interrupted)" in summary(partial)
