"""Outcomes against the fault servers: pass, fail, error, reports, --lf, -x, JUnit, xdist, store."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from promptum.store import RunStore
from tests.pytest_plugin.plugin_project import Servers, write_project
from tests.support.results import statuses

OUTCOMES = {
    "passes": "passed",
    "fails": "failed",
    "judged": "passed",
    "judge-down": "error",
    "model-down": "error",
}


_VERBOSE = re.compile(r"prompts/demo\.yaml::demo/([\w-]+)\[\S+\] (PASSED|FAILED|ERROR)")
_XDIST = re.compile(
    r"\[gw\d\] \[ *\d+%\] (PASSED|FAILED|ERROR) prompts/demo\.yaml::demo/([\w-]+)\["
)


def verbose_outcomes(result: pytest.RunResult) -> dict[str, str]:
    """Each case's outcome, from the lines of ``-v`` (with or without xdist)."""
    found = {}
    for line in result.outlines:
        if match := _VERBOSE.match(line):
            found[match[1]] = match[2].lower()
        elif match := _XDIST.match(line):
            found[match[2]] = match[1].lower()
    return found


def test_pass_fail_and_error_are_pytests_outcomes(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    result = pytester.runpytest("-v", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1, errors=2)
    assert verbose_outcomes(result) == OUTCOMES


def test_a_failure_shows_its_reasons_response_and_source(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    result = pytester.runpytest("-ra")
    result.stdout.fnmatch_lines(
        [
            "*_ demo/fails[[]fault/m[]] _*",
            "FAIL fails (fault/m) prompts/demo.yaml:10",
            "    - contains: expected to contain 'Rome'*",
            "Response (38 characters, *):",
            '    {"score": 9, "reason": "Names Paris."}',
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "FAILED prompts/demo.yaml::demo/fails[[]fault/m[]] - 1 of 1 checks failed: contains",
        ]
    )


def test_a_judge_that_cannot_grade_is_an_error_at_setup(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    result = pytester.runpytest("-ra", "-k", "down")
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of demo/judge-down[[]fault/m[]]*",
            "ERROR judge-down (fault/m) prompts/demo.yaml:18",
            "    - judge error: authentication failed: *bad key*",
            "Response (38 characters, *):",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of demo/model-down[[]down/m[]]*",
            "ERROR model-down (down/m) prompts/demo.yaml:22",
            "    - error: authentication failed: *bad key*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "ERROR prompts/demo.yaml::demo/judge-down[[]fault/m[]] - the judge could not grade*",
            "ERROR prompts/demo.yaml::demo/model-down[[]down/m[]] - authentication failed*",
        ]
    )
    assert len(servers.down.requests) == 2  # one call each: a refused key is not retried


def test_a_judge_below_its_threshold_fails(pytester: pytest.Pytester, servers: Servers) -> None:
    strict = "models: [fault/m]\njudge: {model: fault/judge, threshold: 0.95}\n" + (
        "test_cases:\n  - {id: strict, query: Hi, expected_behavior: Greets}\n"
    )
    write_project(pytester, {"demo.yaml": strict})
    result = pytester.runpytest("-ra")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["    - judge score 0.9 < 0.95: Names Paris."])


def test_last_failed_reruns_failures_and_errors_only(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    pytester.runpytest().assert_outcomes(passed=2, failed=1, errors=2)
    result = pytester.runpytest("--lf", "-v")
    result.assert_outcomes(failed=1, errors=2)
    assert verbose_outcomes(result) == {
        name: outcome for name, outcome in OUTCOMES.items() if outcome != "passed"
    }


def test_exitfirst_stops_and_records_a_partial_run(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    result = pytester.runpytest("-x")
    result.assert_outcomes(passed=1, failed=1)
    (run,) = RunStore(pytester.path / ".promptum" / "runs.sqlite").list_runs()
    assert (run.total, run.passed, run.failed) == (2, 1, 1)
    assert run.state == "interrupted"


def test_junit_xml_has_failures_errors_and_the_case_source(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    pytester.runpytest("--junitxml=junit.xml", "-o", "junit_family=xunit1")
    cases = {
        case.get("name"): case
        for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    }
    assert set(cases) == {
        f"demo/{name}[{'down' if name == 'model-down' else 'fault'}/m]" for name in OUTCOMES
    }
    failure = cases["demo/fails[fault/m]"].find("failure")
    assert failure is not None
    assert failure.get("message") == "1 of 1 checks failed: contains"
    assert "expected to contain 'Rome'" in (failure.text or "")
    error = cases["demo/judge-down[fault/m]"].find("error")
    assert error is not None
    assert "the judge could not grade" in (error.get("message") or "")
    assert cases["demo/judged[fault/m]"].find("failure") is None
    # pytest writes the line 0-based, for Python tests too: the case is on line 10.
    fails = cases["demo/fails[fault/m]"]
    assert (fails.get("file"), fails.get("line")) == ("prompts/demo.yaml", "9")


def test_two_xdist_workers_give_the_outcomes_of_one_process(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    single = pytester.runpytest("-v", "-p", "no:cacheprovider")
    assert verbose_outcomes(single) == OUTCOMES
    result = pytester.runpytest("-v", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1, errors=2)
    assert verbose_outcomes(result) == OUTCOMES
    assert {line[:5] for line in result.outlines if _XDIST.match(line)} == {"[gw0]", "[gw1]"}
    result.stdout.fnmatch_lines(["FAIL fails (fault/m) prompts/demo.yaml:10"])
    runs = RunStore(pytester.path / ".promptum" / "runs.sqlite").list_runs()
    assert [(r.total, r.passed, r.failed, r.errors, r.state) for r in runs] == [
        (5, 2, 1, 2, "complete"),
        (5, 2, 1, 2, "complete"),
    ]


def test_the_session_is_recorded_as_one_run(pytester: pytest.Pytester, servers: Servers) -> None:
    write_project(pytester)
    result = pytester.runpytest()
    store = RunStore(pytester.path / ".promptum" / "runs.sqlite")
    (summary,) = store.list_runs()
    result.stdout.fnmatch_lines(
        [f"promptum: recorded 5 results as run {summary.run_id} in */.promptum/runs.sqlite"]
    )
    run = store.load(summary.run_id)
    assert run.suite == "demo"
    assert sorted(run.models) == ["down/m", "fault/m"]
    assert run.config["runner"] == "pytest"
    assert statuses(run) == {
        "passes": "pass",
        "fails": "fail",
        "judged": "pass",
        "judge-down": "error",
        "model-down": "error",
    }
    (judged,) = [r for r in run.results if r.case_id == "judged"]
    assert judged.judge_score == 0.9
    assert judged.source == "prompts/demo.yaml:15"


@pytest.mark.parametrize("off", [["--promptum-no-store"], ["-o", "promptum_store=false"]])
def test_recording_can_be_turned_off(
    pytester: pytest.Pytester, servers: Servers, off: list[str]
) -> None:
    write_project(pytester)
    result = pytester.runpytest(*off)
    result.assert_outcomes(passed=2, failed=1, errors=2)
    assert not (pytester.path / ".promptum" / "runs.sqlite").exists()
    assert "promptum: recorded" not in result.stdout.str()


def test_a_second_session_is_answered_from_the_cache(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    write_project(pytester)
    pytester.runpytest("-k", "passes or judged")
    calls = len(servers.ok.requests)
    assert calls == 3  # two cases and one judge verdict
    pytester.runpytest("-k", "passes or judged").assert_outcomes(passed=2)
    assert len(servers.ok.requests) == calls
    pytester.runpytest("-k", "passes", "--promptum-no-cache").assert_outcomes(passed=1)
    assert len(servers.ok.requests) == calls + 1
