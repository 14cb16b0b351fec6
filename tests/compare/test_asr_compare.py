"""`promptum compare` of attack success rates: two runs or two prompt variants, paired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.compare import compare_runs, comparison_html, comparison_markdown, sign_test
from promptum.reporting import write_report
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, RunResult

SCRIPT = "<script>alert(1)</script>"

# Per goal, 25 attack cases. The baseline leaks prompt_leak 0-14 and tool 0-1 (17 of 50); the
# hardened prompt leaks prompt_leak 0 and 20 and tool 0 (3 of 50). Paired: 15 cases fell
# (prompt_leak 1-14, tool 1) and one rose (prompt_leak 20).
BASELINE = {("prompt_leak", i) for i in range(15)} | {("tool", 0), ("tool", 1)}
HARDENED = {("prompt_leak", 0), ("prompt_leak", 20), ("tool", 0)}


def results(
    leaks: set[tuple[str, int]],
    *,
    variant: str | None = None,
    errors: frozenset[tuple[str, int]] = frozenset(),
    goals: tuple[str, ...] = ("prompt_leak", "tool"),
) -> list[CaseResult]:
    made = []
    for goal in goals:
        for i in range(25):
            status = "error" if (goal, i) in errors else "fail" if (goal, i) in leaks else "pass"
            made.append(
                CaseResult(
                    case_id=f"{goal}-{i:02d}",
                    suite="attacks",
                    model="m",
                    variant=variant,
                    status=status,  # type: ignore[arg-type]
                    completion=Completion(error="down")
                    if status == "error"
                    else Completion(text="the canary" if status == "fail" else "no"),
                    grades=[] if status == "error" else [_detector(goal, status == "pass")],
                    tags=["redteam", f"goal:{goal}", "strategy:direct"],
                )
            )
    return made


def _detector(goal: str, passed: bool) -> Grade:
    """The goal's detector check, failing when the attack succeeded."""
    name = "canary_not_leaked" if goal == "prompt_leak" else "tool_not_called"
    return Grade("check", name, passed)


def run(run_id: str, made: list[CaseResult]) -> RunResult:
    return RunResult(run_id=run_id, suite="attacks", models=["m"], results=made)


def compare(*args: str) -> Result:
    return CliRunner().invoke(main, ["compare", *args], catch_exceptions=False)


def test_the_paired_test_is_the_sign_test_on_cases_that_moved() -> None:
    comparison = compare_runs(run("a", results(BASELINE)), run("b", results(HARDENED)))
    [pair] = comparison.models
    overall, leak, tool = pair.asr
    assert (overall.goal, leak.goal, tool.goal) == (None, "prompt_leak", "tool")
    assert (overall.a.succeeded, overall.a.attempts) == (17, 50)
    assert (overall.b.succeeded, overall.b.attempts) == (3, 50)
    assert (overall.shared, overall.fell, overall.rose) == (50, 15, 1)
    # Exact two-sided: 2 · (C(16,0) + C(16,1)) / 2^16 = 34 / 65536.
    assert overall.p_value == 34 / 65536 == sign_test(1, 15)
    assert (leak.fell, leak.rose, leak.p_value) == (14, 1, 2 * (1 + 15) / 2**15)
    assert (tool.fell, tool.rose, tool.p_value) == (1, 0, 1.0)


def test_two_runs_side_by_side_in_the_terminal_and_json(tmp_path: Path) -> None:
    write_report(run("base-run", results(BASELINE)), tmp_path / "a.json")
    write_report(run("hard-run", results(HARDENED)), tmp_path / "b.json")
    result = compare(str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.exit_code == 0, result.output
    assert (
        "Attack success, all attacks — B (hard-run): 6% [2–16%] vs A (base-run) 34% [22–48%], "
        "p < 0.001 (50 attacks paired)"
    ) in result.output
    assert (
        "Attack success, prompt_leak — B (hard-run): 8% [2–25%] vs A (base-run) 60% [41–77%], "
        "p < 0.001 (25 attacks paired)"
    ) in result.output
    assert (
        "Attack success, tool — B (hard-run): 4% [0.7–20%] vs A (base-run) 8% [2–25%], "
        "p = 1 (25 attacks paired)"
    ) in result.output
    data = json.loads(compare(str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json").output)
    overall = data["pairs"][0]["asr"][0]
    assert overall["goal"] is None
    assert (overall["a"]["succeeded"], overall["b"]["succeeded"]) == (17, 3)
    assert overall["b"]["interval"] == pytest.approx([0.0206150, 0.1621709], abs=1e-6)
    assert (overall["shared"], overall["fell"], overall["rose"]) == (50, 15, 1)
    assert overall["p_value"] == 34 / 65536


def test_two_prompt_variants_of_one_run(tmp_path: Path) -> None:
    both = results(BASELINE, variant="baseline") + results(HARDENED, variant="hardened")
    write_report(run("variants", both), tmp_path / "r.json")
    result = compare(str(tmp_path / "r.json"), "--variant-a", "baseline", "--variant-b", "hardened")
    assert result.exit_code == 0, result.output
    assert (
        "Attack success, all attacks — hardened: 6% [2–16%] vs baseline 34% [22–48%], "
        "p < 0.001 (50 attacks paired)"
    ) in result.output


def test_a_run_with_variants_pairs_their_rates_in_its_own_summary(tmp_path: Path) -> None:
    both = results(BASELINE, variant="baseline") + results(HARDENED, variant="hardened")
    markdown = tmp_path / "r.md"
    write_report(run("variants", both), markdown)
    assert (
        "- Attack success on m, all attacks — hardened: 6% \\[2–16%\\] vs baseline "
        "34% \\[22–48%\\], p \\< 0.001 (50 attacks paired)"
    ) in markdown.read_text("utf-8")


def test_errors_are_left_out_of_the_pairing_and_of_the_rates() -> None:
    errored = frozenset({("prompt_leak", 1), ("prompt_leak", 2)})
    comparison = compare_runs(
        run("a", results(BASELINE)), run("b", results(HARDENED, errors=errored))
    )
    overall = comparison.models[0].asr[0]
    assert (overall.b.succeeded, overall.b.attempts, overall.b.undetermined) == (3, 48, 2)
    assert (overall.shared, overall.fell, overall.rose) == (48, 13, 1)


def test_markdown_and_html_comparisons_show_the_rates_inert() -> None:
    goals = (SCRIPT, "tool")
    a = run("a", results({(SCRIPT, 0), ("tool", 0)}, goals=goals))
    b = run("b", results(set(), goals=goals))
    comparison = compare_runs(a, b)
    markdown = comparison_markdown(comparison)
    assert "- Attack success, all attacks — B (b): 0% \\[0–7%\\] vs A (a) 4%" in markdown
    assert SCRIPT not in markdown
    page = comparison_html(comparison)
    assert "<h3>Attack success rate</h3>" in page
    assert "Attack success, all attacks — B (b): 0% [0–7%] vs A (a) 4%" in page
    assert SCRIPT not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_runs_without_attacks_compare_as_before(tmp_path: Path) -> None:
    plain = [
        CaseResult(case_id=f"c{i}", model="m", status="pass", completion=Completion(text="x"))
        for i in range(3)
    ]
    comparison = compare_runs(run("a", plain), run("b", plain))
    assert comparison.models[0].asr == []
    assert "Attack success" not in comparison_markdown(comparison)
    assert "Attack success" not in comparison_html(comparison)
    write_report(run("a", plain), tmp_path / "a.json")
    write_report(run("b", plain), tmp_path / "b.json")
    data = json.loads(compare(str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json").output)
    assert "asr" not in data["pairs"][0]
