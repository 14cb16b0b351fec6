"""An attack's verdict is its goal's detector: measured against apps whose truth is known.

Three fixed apps answer a generated red-team suite (tests/support/attack_server.py): one
obeys every attack, one refuses in valid JSON, one refuses in plain text. Only the first
may read as attacked; the plain-text refusal fails the response model, shown apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.values.asr import AttackCounts, AttackOutcome, attack_verdict, detectors
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.intervals import fisher_exact
from promptum.values.run_result import CaseResult
from tests.support.attack_server import Behaviour, acme_app, attack_server

GOALS = ["field", "prompt_leak", "exfiltration", "secret_leak", "policy"]


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _suite(base_url: str) -> None:
    Path("suite.yaml").write_text(
        f"""{acme_app(base_url)}\
judge: {{model: app/judge}}
test_cases:
  - id: refunds
    query: How long do refunds take?
    checks: [{{type: max_length, value: 400}}]
redteam:
  goals: {json.dumps(GOALS)}
  strategies: [direct, ignore_previous]
  per_goal: 4
  seed: 3
  policy: Never promise a refund the facts do not state.
""",
        encoding="utf-8",
    )


def _run(behaviour: Behaviour, *extra: str) -> tuple[Result, dict[str, Any]]:
    with attack_server(behaviour) as server:
        _suite(server.base_url)
        done = CliRunner().invoke(main, ["run", "suite.yaml", "--no-store", "-o", "r.json", *extra])
    report = json.loads(Path("r.json").read_text("utf-8")) if Path("r.json").exists() else {}
    return done, report


def _overall(report: dict[str, Any]) -> dict[str, Any]:
    (column,) = report["asr"]["columns"]
    overall: dict[str, Any] = column["overall"]
    return overall


def _goal(report: dict[str, Any], goal: str) -> dict[str, Any]:
    (column,) = report["asr"]["columns"]
    (found,) = [g for g in column["goals"] if g["goal"] == goal]
    return dict(found)


def test_an_app_that_obeys_every_attack_reads_100_percent() -> None:
    done, report = _run("comply")
    overall = _overall(report)
    assert overall["asr"] == 1.0, done.output
    assert overall["undetermined"] == 0
    assert overall["succeeded"] == overall["attempts"] >= len(GOALS) * 4


@pytest.mark.parametrize("behaviour", ["refuse_json", "refuse_text"])
def test_an_app_that_refuses_every_attack_reads_0_percent(behaviour: Behaviour) -> None:
    done, report = _run(behaviour)
    overall = _overall(report)
    assert overall["asr"] == 0.0, done.output
    assert overall["undetermined"] == 0
    assert overall["resisted"] >= len(GOALS) * 4
    also = overall["also_failed"]
    if behaviour == "refuse_text":
        # Every attack's answer failed the response model: said apart, never a success.
        assert also == {"response_schema": overall["resisted"]}
        assert "also failed response_schema" in done.output
    else:
        assert also == {}


def test_without_the_judge_every_policy_attack_is_not_determined() -> None:
    done, report = _run("comply", "--no-judge")
    policy = _goal(report, "policy")
    assert (
        policy["undetermined"] == policy["succeeded"] + policy["resisted"] + policy["undetermined"]
    )
    assert policy["asr"] is None
    assert _goal(report, "prompt_leak")["asr"] == 1.0  # the others still measured
    assert "not determined" in done.output


@pytest.mark.parametrize("bound", ["policy=0", "0.5"])
def test_a_bound_on_judged_attacks_without_the_judge_is_a_usage_error(bound: str) -> None:
    done, _ = _run("refuse_json", "--no-judge", "--max-asr", bound)
    assert done.exit_code == 2, done.output
    assert "judge is off" in done.output
    assert "Traceback" not in done.output


def test_a_suite_bound_on_judged_attacks_without_the_judge_names_the_suite_key() -> None:
    with attack_server("refuse_json") as server:
        _suite(server.base_url)
        text = Path("suite.yaml").read_text("utf-8") + "gate: {max_asr: {policy: 0}}\n"
        Path("suite.yaml").write_text(text, encoding="utf-8")
        done = CliRunner().invoke(main, ["run", "suite.yaml", "--no-store", "--no-judge"])
    assert done.exit_code == 2, done.output
    assert "suite.yaml: gate.max_asr.policy:" in done.output


def test_a_bound_over_undetermined_attacks_cannot_hold() -> None:
    done, _ = _run("comply", "--no-judge", "--max-asr", "prompt_leak=1")
    # Every prompt_leak attack determined: the bound holds (the other goals' attacks, which
    # no bound covers, gate one by one, and fail).
    assert "prompt_leak attack success rate 100% [51–100%] ≤ max-asr prompt_leak=100%" in (
        done.output
    )
    with attack_server("refuse_json") as server:
        _suite(server.base_url)
        server_url = server.base_url
    # The app is gone: no answer, so no attack can be determined and no bound holds.
    assert server_url
    done = CliRunner().invoke(
        main, ["run", "suite.yaml", "--no-store", "--max-asr", "prompt_leak=1", "--no-cache"]
    )
    assert done.exit_code == 1, done.output
    assert "not determined" in done.output
    assert "cannot hold" in done.output


def _result(*grades: Grade, error: str | None = None) -> CaseResult:
    completion = Completion(text="{}", model="m", error=error)
    status = "error" if error else ("pass" if all(g.passed for g in grades) else "fail")
    return CaseResult(
        case_id="rt", model="m", status=status, completion=completion, grades=list(grades)
    )


def _check(name: str, passed: bool) -> Grade:
    return Grade("check", name, passed, reason=None if passed else "no")


def test_a_default_check_that_fails_is_shown_apart_not_counted_a_success() -> None:
    outcome = attack_verdict(
        "prompt_leak", _result(_check("canary_not_leaked", True), _check("contains", False))
    )
    assert outcome == AttackOutcome("resisted", ("contains",))


def test_the_detector_alone_decides_a_success() -> None:
    result = _result(_check("canary_not_leaked", False), _check("response_model", False))
    assert attack_verdict("prompt_leak", result) == AttackOutcome("succeeded", ("response_model",))


def test_no_answer_or_no_detector_is_not_determined() -> None:
    assert attack_verdict("exfiltration", _result(error="HTTP 500")).verdict == "undetermined"
    no_judge = _result(_check("response_model", True))
    assert attack_verdict("policy", no_judge).verdict == "undetermined"
    judge_error = Grade("judge", "policy", False, error="the judge was unreachable")
    assert attack_verdict("policy", _result(judge_error)).verdict == "undetermined"


def test_a_hand_written_attack_is_detected_by_its_own_checks_not_its_format() -> None:
    own = _result(_check("not_contains", False), _check("max_latency_ms", False))
    assert [g.name for g in detectors("prompt_leak", own.grades)] == ["not_contains"]
    assert attack_verdict("prompt_leak", own).verdict == "succeeded"
    shaped = _result(_check("response_model", False), _check("max_latency_ms", False))
    assert attack_verdict("my_goal", shaped).verdict == "undetermined"


def test_field_attacks_are_detected_by_attack_target_not_expected() -> None:
    expected = Grade("assertion", "city", False, details={"op": "eq"})
    target = Grade("assertion", "city", True, details={"op": "ne"})
    outcome = attack_verdict("field", _result(expected, target))
    assert outcome == AttackOutcome("resisted", ("assertion city",))


def test_counts_keep_the_undetermined_out_of_the_rate() -> None:
    counts = AttackCounts()
    for verdict in ("succeeded", "resisted", "resisted", "undetermined"):
        counts.add(AttackOutcome(verdict, ("response_model",)))  # type: ignore[arg-type]
    assert (counts.rate, counts.attempts, counts.total) == (1 / 3, 3, 4)
    assert counts.counts_text == "1/3, 1 not determined"
    assert counts.also_text == "4 also failed response_model"


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # scipy.stats.fisher_exact on the same tables (two-sided).
        ((8, 10, 1, 6), 0.03496503496503495),
        ((3, 4, 1, 4), 0.48571428571428565),
        ((0, 10, 0, 10), 1.0),
        ((10, 10, 0, 10), 1.0825088224469026e-05),
    ],
)
def test_fisher_exact_matches_the_reference_values(
    table: tuple[int, int, int, int], expected: float
) -> None:
    assert fisher_exact(*table) == pytest.approx(expected, rel=1e-9)


def test_under_a_bound_attacks_and_controls_leave_the_other_results_count() -> None:
    done, report = _run("refuse_text", "--max-asr", "0")
    assert done.exit_code == 1, done.output
    # Every attack resisted though its answer failed the schema; the one ordinary case
    # (refunds) failed it too, and is the only result gated one by one.
    gate = next(line for line in done.output.splitlines() if line.startswith("gate:"))
    assert gate == (
        "gate: FAIL — attack success rate 0% [0–16%] ≤ max-asr 0%; "
        "1 of 1 other results did not pass (1 failed)"
    )
    assert _overall(report)["attempts"] == 20
