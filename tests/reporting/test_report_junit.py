from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from junitparser import Error, Failure, JUnitXml, TestCase
from report_samples import (
    CONTROL,
    MODELS,
    STARTED,
    completion,
    repeated_run,
    result,
    sample_run,
)

from promptum.reporting import write_report
from promptum.values.run_result import CaseResult, JudgeVerdict, RunResult


def parse(run: RunResult, tmp_path: Path) -> JUnitXml:
    path = tmp_path / "junit.xml"
    write_report(run, path)
    return JUnitXml.fromfile(str(path))


def cases(xml: JUnitXml) -> dict[tuple[str, str], TestCase]:
    return {(suite.name, case.name): case for suite in xml for case in suite}


def verdict(case: TestCase) -> tuple[str, str] | None:
    results = [r for r in case.result if isinstance(r, Failure | Error)]
    assert len(results) <= 1
    return (type(results[0]).__name__, results[0].type) if results else None


def test_one_suite_per_model_with_counts(sample: RunResult, tmp_path: Path) -> None:
    xml = parse(sample, tmp_path)
    assert [suite.name for suite in xml] == MODELS
    by_model = {suite.name: suite for suite in xml}
    for model, stats in sample.stats().items():
        suite = by_model[model]
        assert suite.tests == stats.total
        assert suite.errors == stats.errors
        assert suite.failures == stats.failed
    assert xml.tests == len(sample.results)


def test_failure_types_follow_precedence(sample: RunResult, tmp_path: Path) -> None:
    found = cases(parse(sample, tmp_path))
    local, gpt, claude = MODELS
    assert verdict(found[local, "capital-france"]) is None
    # checks and the judge both failed: the checks decide
    assert verdict(found[claude, "capital-france"]) == ("Failure", "DeterministicCheckFailed")
    # an attack_target assertion failed, every check passed
    assert verdict(found[local, "json-profile"]) == ("Failure", "FieldAssertionFailed")
    # checks and assertions both failed: the checks decide
    assert verdict(found[claude, "json-profile"]) == ("Failure", "DeterministicCheckFailed")
    assert verdict(found[local, "polite-summary"]) == ("Failure", "JudgeBelowThreshold")
    assert verdict(found[claude, "control-chars"]) == ("Error", "ModelError")
    # the judge call failed: nothing graded the case, so it is an error
    assert verdict(found[gpt, "control-chars"]) == ("Error", "JudgeError")


def test_error_beats_everything(tmp_path: Path) -> None:
    model = MODELS[0]
    errored = CaseResult(
        case_id="e",
        model=model,
        status="error",
        completion=completion("", model).model_copy(update={"error": "HTTP 500"}),
        judge=JudgeVerdict(model=model, score=0.1, passed=False, reason="bad"),
    )
    run = RunResult(run_id="r", models=[model], results=[errored])
    (case,) = cases(parse(run, tmp_path)).values()
    assert verdict(case) == ("Error", "ModelError")
    assert case.result[0].message == "HTTP 500"


def test_aggregated_check_failure_lists_each_check(sample: RunResult, tmp_path: Path) -> None:
    case = cases(parse(sample, tmp_path))[MODELS[2], "capital-france"]
    failure = case.result[0]
    assert failure.message == "2 of 2 checks failed: contains, max_latency_ms"
    assert "contains (Response contains 'Paris'): expected to contain 'Paris'" in failure.text
    assert "max_latency_ms (Latency at most 2000 ms): latency 2600 ms > 2000 ms" in failure.text


def test_system_out_has_every_check_outcome(sample: RunResult, tmp_path: Path) -> None:
    case = cases(parse(sample, tmp_path))[MODELS[0], "json-profile"]
    out = case.system_out
    assert "check PASS is_valid_json" in out
    assert "check PASS contains" in out
    assert 'assertion FAIL [ne] role: "admin" matches the attack target' in out
    assert "assertion PASS [eq]" in out


def test_checks_only_pass_without_judge(tmp_path: Path) -> None:
    model = MODELS[0]
    passed = result(
        "checks-only", model, completion("Paris", model), prompt="Capital?",
        checks=[{"type": "contains", "value": "Paris"}],
    )  # fmt: skip
    assert passed.judge is None
    assert passed.status == "pass"
    run = RunResult(run_id="r", models=[model], results=[passed])
    xml = parse(run, tmp_path)
    assert (xml.tests, xml.failures, xml.errors) == (1, 0, 0)


def test_a_failing_check_fails_ci_even_with_a_passing_judge(tmp_path: Path) -> None:
    model = MODELS[0]
    failed = result(
        "c", model, completion("Lyon", model), prompt="Capital?",
        checks=[{"type": "contains", "value": "Paris"}],
        verdict=JudgeVerdict(model=model, score=1.0, passed=True, reason="great"),
    )  # fmt: skip
    run = RunResult(run_id="r", models=[model], results=[failed])
    (case,) = cases(parse(run, tmp_path)).values()
    assert verdict(case) == ("Failure", "DeterministicCheckFailed")


def test_well_formed_with_hostile_and_invalid_characters(tmp_path: Path) -> None:
    model = MODELS[0]
    nasty = CONTROL + " \ufffe \ud800 ]]> <![CDATA[ x ]]> </system-out> &amp; \x0c\x7f"
    run = RunResult(
        run_id="r\x01",
        suite="s<\x02>",
        models=[model],
        results=[
            result(f"id{nasty}", model, completion(nasty, model), prompt=nasty,
                   checks=[{"type": "contains", "value": "\x1b"}]),
        ],
    )  # fmt: skip
    path = tmp_path / "junit.xml"
    write_report(run, path)
    ET.parse(path)  # strict XML 1.0 parser: raises on any invalid character
    (case,) = cases(JUnitXml.fromfile(str(path))).values()
    assert "ok\\x00 then \\x1b[31mred\\x1b[0m" in case.system_out
    assert "</system-out> &amp;" in case.system_out
    assert "\ufffd" in case.system_out
    assert case.name.startswith("idok\\x00")


def test_times_and_source_location(sample: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    write_report(sample, path)
    root = ET.parse(path).getroot()
    assert float(root.get("time", "")) == 42.5
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("timestamp") == STARTED.isoformat(timespec="seconds")
    first = suite.find("testcase")
    assert first is not None
    assert (first.get("time"), first.get("file"), first.get("line")) == (
        "0.420",
        "suites/geo.yaml",
        "4",
    )


def test_repeats_are_separate_testcases(tmp_path: Path) -> None:
    xml = parse(repeated_run(), tmp_path)
    names = [case.name for suite in xml for case in suite]
    assert names == ["math [repeat 1]", "math [repeat 2]", "math [repeat 3]"]
    assert xml.failures == 1


def test_incomplete_run_is_marked(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    write_report(sample_run(complete=False), path)
    properties = {p.get("name"): p.get("value") for p in ET.parse(path).getroot().iter("property")}
    assert properties["complete"] == "false"


def test_a_status_without_a_recorded_reason_still_counts(tmp_path: Path) -> None:
    model = MODELS[0]
    bare = {"case_id": "c", "model": model, "completion": completion("x", model)}
    run = RunResult(
        run_id="r",
        models=[model],
        results=[
            CaseResult(**bare, status="fail"),
            CaseResult(**bare, repeat=1, status="error"),
            CaseResult(**bare, repeat=2, status="pass"),
        ],
    )
    xml = parse(run, tmp_path)
    assert [verdict(case) for suite in xml for case in suite] == [
        ("Failure", "Failed"),
        ("Error", "Error"),
        None,
    ]
