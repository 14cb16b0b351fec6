"""A response nothing graded is an error, never a pass: run output, reports, gate, validate."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer, Reply
from tests.support.suites import JUDGED_BY_FAULT

UNGRADED = """\
name: demo
models: [fault/m]
test_cases:
  - id: bare
    query: Say hello
  - id: checked
    query: Say hello
    checks: [{type: contains, value: hello}]
"""

JUDGE_ONLY = (
    "name: demo\n"
    + JUDGED_BY_FAULT
    + """\
test_cases:
  - id: judged
    query: Capital of France?
    expected_behavior: Names Paris
  - id: criteria
    query: Capital of France, in one word?
    judge:
      criteria: {names-paris: Names Paris}
"""
)


def test_an_ungraded_case_is_an_error_with_its_reason_everywhere(server: FaultServer) -> None:
    server.default = Reply.ok("hello")
    write("suite.yaml", UNGRADED)
    result = invoke("run", "suite.yaml", "-c", "1", "-o", "r.json", "-o", "r.xml")
    assert result.exit_code == 1, result.output
    out = result.output
    reason = "nothing graded the response: add a check, a field assertion or a judge criterion"
    assert "ERROR demo/bare (fault/m, " in out
    assert reason in out
    assert "PASS demo/checked" in out
    assert "all passed" not in out
    assert "gate: FAIL" in out

    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    bare = next(r for r in report["results"] if r["case_id"] == "bare")
    assert bare["status"] == "error"
    assert [(g["kind"], g["name"], g["passed"], g["error"]) for g in bare["grades"]] == [
        ("check", "ungraded", False, reason)
    ]
    checked = next(r for r in report["results"] if r["case_id"] == "checked")
    assert [g["name"] for g in checked["grades"]] == ["contains"]  # graded: nothing added

    cases = {case.get("name"): case for case in ET.parse("r.xml").iter("testcase")}
    error = cases["demo/bare"].find("error")
    assert error is not None
    assert (error.get("type"), error.get("message")) == ("Ungraded", reason)
    assert cases["demo/checked"].find("error") is None


def test_no_judge_on_a_judge_only_case_is_an_error_naming_the_judge_and_fails_the_gate(
    server: FaultServer,
) -> None:
    server.default = Reply.ok("Paris")
    write("suite.yaml", JUDGE_ONLY)
    result = invoke("run", "suite.yaml", "-c", "1", "--no-judge", "-o", "r.json")
    assert result.exit_code == 1, result.output
    out = result.output
    assert "all passed" not in out
    assert "gate: FAIL" in out
    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    errors = {r["case_id"]: (r["status"], r["grades"][0]["error"]) for r in report["results"]}
    off = (
        "nothing graded the response: only its judge would grade it, and the judge is off "
        "(--no-judge): run it with its judge, or add a check or a field assertion"
    )
    # Named criteria alone, as well as an expected behaviour: the judge is named either way.
    assert errors == {"judged": ("error", off), "criteria": ("error", off)}
    assert "the judge is off (--no-judge)" in out
    assert [r.body["model"] for r in server.requests] == ["m", "m"]  # no judge was called

    server.default = Reply.ok('{"score": 9, "reason": "names Paris"}')  # answer and verdict
    judged = invoke("run", "suite.yaml", "-c", "1", "--no-store", "--no-cache")
    assert judged.exit_code == 0, judged.output  # with its judge, each case is graded
    assert "all passed" in judged.output


def test_a_judged_case_does_not_pass_on_a_latency_budget_alone_without_its_judge(
    server: FaultServer,
) -> None:
    server.default = Reply.ok("Paris")
    budget = JUDGE_ONLY.replace(
        "test_cases:", "defaults:\n  checks: [{type: max_latency_ms, value: 60000}]\ntest_cases:"
    )
    write("suite.yaml", budget)
    result = invoke("run", "suite.yaml", "-c", "1", "--no-judge", "--no-store", "-o", "r.json")
    assert result.exit_code == 1, result.output
    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    for case in report["results"]:
        assert case["status"] == "error"
        # The budget is kept and shown; the ungraded error says what was not graded.
        assert [g["name"] for g in case["grades"]] == ["max_latency_ms", "ungraded"]
        assert case["grades"][0]["passed"] is True


def test_an_expected_behavior_without_a_judge_says_it_needs_one(server: FaultServer) -> None:
    server.default = Reply.ok("Paris")
    write(
        "suite.yaml",
        """\
        models: [fault/m]
        test_cases:
          - {id: judged, query: Capital of France?, expected_behavior: Names Paris}
          - {id: bare, query: Capital of Italy?}
        """,
    )
    result = invoke("run", "suite.yaml", "-c", "1", "-o", "r.json")
    assert result.exit_code == 1, result.output
    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    reasons = {r["case_id"]: r["grades"][0]["error"] for r in report["results"]}
    assert "its expected_behavior (or judge criteria) needs a judge" in reasons["judged"]
    assert reasons["bare"] == (
        "nothing graded the response: add a check, a field assertion or a judge criterion"
    )


def test_validate_warns_about_ungraded_cases_by_file_and_line_and_exits_0(
    server: FaultServer,
) -> None:
    write("suite.yaml", UNGRADED)
    write("judged.yaml", JUDGE_ONLY.replace("name: demo", "name: judged"))
    result = invoke("validate", "suite.yaml", "judged.yaml")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:3] == [
        "✓ suite.yaml: 2 cases, 1 check",
        "  warning: nothing grades 1 case, so a run makes it an error:",
        "    suite.yaml:4: add a check, a field assertion or a judge criterion",
    ]
    assert "✓ judged.yaml: 2 cases, 0 checks" in result.output
    assert result.output.count("warning:") == 1  # the judged suite grades every case
