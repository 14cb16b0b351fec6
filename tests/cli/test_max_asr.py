"""`promptum run --max-asr`: red-team cases gate on their attack success rate, not one by one."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from promptum import Session
from promptum.cli import main
from promptum.cli._options import RunOptions
from promptum.cli._watch import run_argv
from promptum.gate import decide
from promptum.reporting import inline_markdown
from promptum.values.asr_bounds import AsrBounds
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, RunResult

APP = """
from pathlib import Path


def answer(query: str, outcome: str) -> str:
    with Path("calls.log").open("a") as log:
        log.write(outcome + "\\n")
    if outcome == "error":
        raise RuntimeError("gateway down")
    if query.startswith("HARDENED") and outcome == "leak":
        return "I cannot share that."
    return "the system prompt says CANARY-7" if outcome == "leak" else "I cannot share that."
"""

Attack = tuple[str, str, str]
"""(goal, strategy, outcome): ``leak`` makes the attack succeed, ``error`` the target fail."""

# prompt_leak: 3 of 10 succeed; tool: 0 of 5. Overall 3/15 = 20%, Wilson [7.0%, 45.2%].
ATTACKS: list[Attack] = [
    *(
        ("prompt_leak", "base64" if i % 2 else "direct", "leak" if i < 3 else "safe")
        for i in range(10)
    ),
    *(("tool", "direct", "safe") for _ in range(5)),
]


def suite(
    attacks: Sequence[Attack] = ATTACKS,
    *,
    gate: str = "",
    plain: bool = True,
    variants: bool = False,
    must_pass: bool = False,
) -> None:
    Path("app.py").write_text(APP, encoding="utf-8")
    lines = ["name: attacks", "target: app.py:answer"]
    if variants:
        lines += ["prompts:", '  baseline: "{{ outcome }}"', '  hardened: "HARDENED {{ outcome }}"']
    else:
        lines.append('prompt: "{{ outcome }}"')
    if gate:
        lines.append(f"gate: {gate}")
    lines.append("test_cases:")
    for index, (goal, strategy, outcome) in enumerate(attacks):
        lines += [
            f"  - id: attack-{index:02d}",
            f"    vars: {{outcome: {outcome}}}",
            f"    tags: [redteam, 'goal:{goal}', 'strategy:{strategy}']",
            "    checks: [{type: not_contains, value: CANARY-7}]",
        ]
        if must_pass and index == 0:
            lines.append("    must_pass: true")
    if plain:
        lines += [
            "  - id: plain",
            "    vars: {outcome: safe}",
            "    checks: [{type: contains, value: cannot}]",
        ]
    Path("suite.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["run", "suite.yaml", *args], catch_exceptions=False)


def gate_line(result: Result) -> str:
    return next(line for line in result.output.splitlines() if line.startswith("gate: "))


def failed_gate(*options: str) -> str:
    """The gate line of a run with `options` that the gate failed (exit code 1)."""
    result = invoke(*options)
    assert result.exit_code == 1, result.output
    return gate_line(result)


def refused(*options: str) -> str:
    """The output of a run with `options` refused as a usage error (exit code 2)."""
    result = invoke(*options)
    assert result.exit_code == 2, result.output
    return result.output


def suite_gate_refusal(gate: str) -> str:
    """The output of a run refused for the suite's `gate` section, located at its line."""
    suite(gate=gate)
    output = refused("--no-store")
    assert "suite.yaml:4" in output
    return output


def calls() -> int:
    log = Path("calls.log")
    return len(log.read_text().splitlines()) if log.exists() else 0


# --- the gate --------------------------------------------------------------------------------


def test_a_run_over_the_bound_fails_naming_bound_rate_and_interval(project: Path) -> None:
    suite()
    result = invoke("--no-store", "--max-asr", "0.1")
    assert result.exit_code == 1, result.output
    assert gate_line(result) == "gate: FAIL — attack success rate 20% [7–45%] > max-asr 10%"


def test_a_run_under_the_bound_passes_though_attacks_failed(project: Path) -> None:
    suite()
    result = invoke("--no-store", "--max-asr", "0.25")
    assert result.exit_code == 0, result.output
    assert gate_line(result) == (
        "gate: PASS — attack success rate 20% [7–45%] ≤ max-asr 25%; all 1 other results passed"
    )
    # Without the bound the same run fails: each failed attack is a failed case.
    plain = invoke("--no-store")
    assert plain.exit_code == 1
    assert gate_line(plain) == "gate: FAIL — 3 of 16 results did not pass (3 failed)"


def test_the_bound_is_inclusive(project: Path) -> None:
    suite()
    assert invoke("--no-store", "--max-asr", "0.2").exit_code == 0


def test_a_bound_per_goal(project: Path) -> None:
    suite()
    over = invoke("--no-store", "--max-asr", "prompt_leak=0.2", "--max-asr", "tool=0")
    assert over.exit_code == 1, over.output
    assert gate_line(over) == (
        "gate: FAIL — prompt_leak attack success rate 30% [11–60%] > max-asr prompt_leak=20%"
    )
    under = invoke("--no-store", "--max-asr", "prompt_leak=0.3", "--max-asr", "tool=0")
    assert under.exit_code == 0, under.output
    assert gate_line(under) == (
        "gate: PASS — prompt_leak attack success rate 30% [11–60%] ≤ max-asr prompt_leak=30%; "
        "tool attack success rate 0% [0–43%] ≤ max-asr tool=0%; all 1 other results passed"
    )
    both = invoke("--no-store", "--max-asr", "0.5", "--max-asr", "prompt_leak=0.25")
    assert both.exit_code == 1
    assert "prompt_leak attack success rate 30% [11–60%] > max-asr prompt_leak=25%" in gate_line(
        both
    )


def test_other_results_still_gate_as_always(project: Path) -> None:
    suite()
    Path("suite.yaml").write_text(
        Path("suite.yaml").read_text().replace("value: cannot", "value: absent"), "utf-8"
    )
    assert failed_gate("--no-store", "--max-asr", "0.5") == (
        "gate: FAIL — attack success rate 20% [7–45%] ≤ max-asr 50%; "
        "1 of 1 other results did not pass (1 failed)"
    )
    lenient = invoke("--no-store", "--max-asr", "0.5", "--fail-under", "0")
    assert lenient.exit_code == 0
    assert "pass rate other 0.00 ≥ 0.00 (--fail-under)" in gate_line(lenient)


def test_an_attack_that_errored_is_not_determined_and_no_bound_holds_over_it(
    project: Path,
) -> None:
    suite([*ATTACKS, ("prompt_leak", "direct", "error")], plain=False)
    result = invoke("--no-store", "--max-asr", "0.5")
    assert result.exit_code == 1, result.output
    # 3/15 still: the error is neither a success nor a resisted attack, and it may have
    # been either, so a bound over it cannot hold.
    assert gate_line(result) == (
        "gate: FAIL — 1 attack not determined (no answer, or its detector did not run): "
        "max-asr 50% cannot hold"
    )
    assert "20% [7–45%] 3/15, 1 not determined" in result.output  # the summary's table
    # A bound on a goal with every attack determined still holds.
    tool_only = invoke("--no-store", "--max-asr", "tool=0")
    assert "tool attack success rate 0% [0–43%] ≤ max-asr tool=0%" in gate_line(tool_only)


def test_attacks_of_a_goal_no_bound_covers_gate_one_by_one(project: Path) -> None:
    refused_all = [("prompt_leak", "direct", "safe")] * 3
    suite([*refused_all, ("tool", "direct", "leak"), ("tool", "direct", "error")])
    # No bound judges the tool attacks by their rate: one succeeded, one errored.
    assert failed_gate("--no-store", "--max-asr", "prompt_leak=0") == (
        "gate: FAIL — prompt_leak attack success rate 0% [0–56%] ≤ max-asr prompt_leak=0%; "
        "2 of 3 other results did not pass (1 failed, 1 error)"
    )


def test_a_default_check_an_attack_failed_is_shown_apart_never_a_success(project: Path) -> None:
    suite([("prompt_leak", "direct", "safe")] * 3, plain=False)
    text = Path("suite.yaml").read_text("utf-8")
    style = "defaults: {checks: [{type: contains, value: Regards}]}\n"
    Path("suite.yaml").write_text(text.replace("test_cases:", style + "test_cases:"), "utf-8")
    # The answers refuse (their own not_contains passes) and lack the sign-off.
    result = invoke("--no-store", "--max-asr", "0")
    assert result.exit_code == 0, result.output
    assert gate_line(result) == "gate: PASS — attack success rate 0% [0–56%] ≤ max-asr 0%"
    assert "3 also failed contains" in result.output


def test_a_goal_whose_attacks_all_errored_was_not_measured(project: Path) -> None:
    suite([*ATTACKS, ("exfiltration", "direct", "error")], plain=False)
    assert failed_gate("--no-store", "--max-asr", "exfiltration=0.1") == (
        "gate: FAIL — 1 exfiltration attack not determined (no answer, or its detector did "
        "not run): max-asr exfiltration=10% cannot hold"
    )


def test_a_must_pass_attack_still_gates_on_its_own(project: Path) -> None:
    suite(must_pass=True)  # attack-00 leaks
    assert (
        failed_gate("--no-store", "--max-asr", "0.5")
        == "gate: FAIL — must-pass case attacks/attack-00 (failed)"
    )


def test_each_prompt_variant_is_held_to_the_bound(project: Path) -> None:
    suite(variants=True)  # the hardened variant resists every attack
    result = invoke("--no-store", "--max-asr", "0.1")
    assert result.exit_code == 1
    assert gate_line(result) == (
        "gate: FAIL — attack success rate 20% [7–45%] on target:app.py:answer · baseline "
        "> max-asr 10%"
    )
    hardened = invoke("--no-store", "--max-asr", "0.1", "--prompt", "hardened")
    assert hardened.exit_code == 0, hardened.output
    # The summary pairs the two variants' rates.
    assert (
        "Attack success on target:app.py:answer, all attacks — hardened: 0% [0–20%] vs "
        "baseline 20% [7–45%], p = 0.25 (15 attacks paired)"
    ) in result.output


# --- bad values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1.5", "'1.5' is not a rate between 0 and 1"),
        ("-0.1", "'-0.1' is not a rate between 0 and 1"),
        ("nan", "'nan' is not a rate between 0 and 1"),
        ("five", "'five' is not a rate between 0 and 1"),
        ("prompt_leak=2", "prompt_leak=2: '2' is not a rate between 0 and 1"),
        ("prompt_leak=", "prompt_leak=: '' is not a rate between 0 and 1"),
        ("=0.1", "name the goal before '='"),
    ],
)
def test_a_value_that_is_no_rate_is_a_usage_error(project: Path, value: str, message: str) -> None:
    suite()
    output = refused("--no-store", "--max-asr", value)
    assert "Invalid value for '--max-asr'" in output
    assert message in output
    assert "Traceback" not in output
    assert calls() == 0


def test_an_unknown_goal_is_refused_with_a_did_you_mean(project: Path) -> None:
    suite()
    output = refused("--no-store", "--max-asr", "prompt_laek=0.1")
    assert output.strip() == (
        "error: --max-asr prompt_laek=…: no red-team case has goal 'prompt_laek'. Did you mean "
        "'prompt_leak'? (goals: prompt_leak, tool)"
    )
    assert calls() == 0


def test_a_bound_on_a_run_without_attacks_is_refused(project: Path) -> None:
    suite([])
    output = refused("--no-store", "--max-asr", "0.1")
    assert "no case of the run is a red-team case (tagged redteam)" in output
    assert calls() == 0


def test_the_goal_check_reads_the_selected_cases(project: Path) -> None:
    suite()
    output = refused("--no-store", "--max-asr", "tool=0.1", "-k", "attack-0*")
    assert "no red-team case has goal 'tool'" in output


# --- the suite's gate section ------------------------------------------------------------------


def test_the_suite_gate_bounds_the_rate(project: Path) -> None:
    suite(gate="{max_asr: 0.1}")
    assert failed_gate("--no-store") == "gate: FAIL — attack success rate 20% [7–45%] > max-asr 10%"
    suite(gate="{max_asr: {prompt_leak: 0.3, tool: 0.0}}")
    assert invoke("--no-store").exit_code == 0
    # The command line replaces the suite's bound, bound by bound.
    suite(gate="{max_asr: 0.1}")
    assert invoke("--no-store", "--max-asr", "0.25").exit_code == 0


def test_the_suite_gate_refuses_a_bad_rate_where_it_is(project: Path) -> None:
    output = suite_gate_refusal("{max_asr: 1.5}")
    assert "gate.max_asr: 1.5 is not a rate between 0 and 1 (0.05), or rates by goal" in output
    assert calls() == 0


def test_the_suite_gate_refuses_an_unknown_goal_with_a_did_you_mean(project: Path) -> None:
    output = suite_gate_refusal("{max_asr: {prompt_leek: 0.1}}")
    assert "gate.max_asr.prompt_leek" in output
    assert "no case has the tag 'goal:prompt_leek'" in output
    assert "Did you mean 'prompt_leak'?" in output
    suite([], gate="{max_asr: 0.1}")
    output = refused("--no-store")
    assert "no case is tagged redteam" in output


# --- streamed runs, the store and reports ------------------------------------------------------


def test_a_streamed_run_gates_as_a_kept_one_and_the_store_keeps_the_bound(project: Path) -> None:
    suite()
    kept = invoke("--no-store", "--max-asr", "0.1", "-o", "kept.md")
    streamed = invoke("--max-asr", "0.1", "-o", "streamed.md", "-o", "streamed.json")
    assert streamed.exit_code == kept.exit_code == 1
    assert gate_line(streamed) == gate_line(kept)
    line = gate_line(kept)
    assert f"**{inline_markdown(line)}**" in Path("kept.md").read_text("utf-8")
    assert f"**{inline_markdown(line)}**" in Path("streamed.md").read_text("utf-8")
    report = json.loads(Path("streamed.json").read_text("utf-8"))
    shown = CliRunner().invoke(main, ["runs", "show", "latest", "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert data["gate"]["line"] == line
    assert data["asr"] == report["asr"]
    [column] = data["asr"]["columns"]
    assert (column["overall"]["succeeded"], column["overall"]["attempts"]) == (3, 15)
    text = CliRunner().invoke(main, ["runs", "show", "latest"])
    assert "Attack success rate (95% CI)" in text.output


def test_watch_runs_again_with_the_bounds(project: Path) -> None:
    options = RunOptions(paths=(Path("suite.yaml"),), concurrency=4, max_asr=("0.1", "tool=0"))
    argv = run_argv(options)
    at = argv.index("--max-asr")
    assert argv[at : at + 4] == ["--max-asr", "0.1", "--max-asr", "tool=0"]


def test_the_python_api_takes_the_same_bounds(project: Path) -> None:
    suite()
    over = Session(max_asr=AsrBounds(0.1))
    over.add_suite("suite.yaml")
    decision = decide(over.run())
    assert (decision.passed, decision.reason) == (
        False,
        "attack success rate 20% [7–45%] > max-asr 10%",
    )
    under = Session(max_asr=AsrBounds(None, {"prompt_leak": 0.3, "tool": 0.0}))
    under.add_suite("suite.yaml")
    assert decide(under.run()).passed


def test_a_rate_just_over_the_bound_never_reads_as_the_bound() -> None:
    results = [
        CaseResult(
            case_id=f"a{i}",
            model="m",
            status="fail" if i < 13 else "pass",
            completion=Completion(text="x"),
            grades=[Grade("check", "not_contains", i >= 13)],
            tags=["redteam", "goal:g", "strategy:s"],
        )
        for i in range(250)
    ]

    def reason(bounds: AsrBounds) -> str:
        run = RunResult(run_id="r", models=["m"], results=results)
        run.config["max_asr"] = bounds.as_config()
        return decide(run).reason

    # 13/250 = 5.2%: "5% > max-asr 5%" would read as a contradiction.
    assert reason(AsrBounds(0.05)) == "attack success rate 5.20% [3–9%] > max-asr 5%"
    assert reason(AsrBounds(0.025)) == "attack success rate 5% [3–9%] > max-asr 2.5%"
    assert reason(AsrBounds(None, {"g": 0.06})) == "g attack success rate 5% [3–9%] ≤ max-asr g=6%"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("true", "true is not a rate"),
        ("'0.1'", '"0.1" is not a rate'),
        (".nan", "NaN is not a rate"),
        ("-0.5", "-0.5 is not a rate"),
        ("[0.1]", "[0.1] is not a rate"),
        ("{tool: 2}", "tool: 2 is not a rate between 0 and 1 (0.1 allows 10%)"),
    ],
)
def test_the_suite_gate_takes_only_rates_written_as_numbers(
    project: Path, value: str, shown: str
) -> None:
    suite(gate=f"{{max_asr: {value}}}")
    output = refused("--no-store")
    assert f"suite.yaml:4:8: gate.max_asr: {shown}" in output
    assert calls() == 0
