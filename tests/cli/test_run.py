"""`promptum run` end to end against the fault server: output, reports, options, exit codes."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.reporting import load_run
from promptum.store import RunStore
from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer, Reply
from tests.support.suites import JUDGED_BY_FAULT

SUITE = (
    "name: demo\n"
    + JUDGED_BY_FAULT
    + """\
test_cases:
  - id: greet
    query: Say hello
    tags: [smoke]
    checks:
      - {type: contains, value: hello, case_insensitive: true}
  - id: capital
    query: Capital of France?
    expected_behavior: Names Paris
    checks:
      - {type: contains, value: Paris}
"""
)


def run_suite(*options: str) -> Result:
    """Write `SUITE` to suite.yaml and run `promptum run suite.yaml OPTIONS`."""
    write("suite.yaml", SUITE)
    return invoke("run", "suite.yaml", *options)


def answer_by_prompt(server: FaultServer) -> None:
    """Queue nothing: every call gets the default reply, which mentions both answers."""
    server.default = Reply.ok("Hello! The capital of France is Paris.")


def test_a_passing_run(server: FaultServer) -> None:
    server.queue(
        Reply.ok("Hello there"), Reply.ok("Paris."), Reply.ok('{"score": 9, "reason": "yes"}')
    )
    result = run_suite("-c", "1")
    assert result.exit_code == 0, result.output
    for shown in (
        "Running 2 results of demo on fault/m",
        "[1/2] PASS demo/greet (fault/m",
        "[2/2] PASS demo/capital (fault/m",
        "fault/m · Checks: 2/2 passed",
        "Judge mean",
        "0.90",
        "2 results in",
        "all passed",
    ):
        assert shown in result.output
    assert "\x1b[" not in result.output  # not a terminal: plain text


def test_failures_exit_1_and_are_listed_with_reasons(server: FaultServer) -> None:
    server.queue(
        Reply.ok("Goodbye"), Reply.ok("Lyon"), Reply.ok('{"score": 1, "reason": "wrong city"}')
    )
    result = run_suite("-c", "1")
    assert result.exit_code == 1
    for shown in (
        "Failures (2)",
        "FAIL demo/greet (fault/m) suite.yaml:5",
        "- contains: expected to contain 'hello'",
        "- judge score 0.1 < 0.5: wrong city",
        "fault/m · Checks: 0/2 passed",
    ):
        assert shown in result.output


def test_fail_under_accepts_a_pass_rate(server: FaultServer) -> None:
    server.queue(Reply.ok("hello"), Reply.ok("Lyon"))
    write("suite.yaml", SUITE)
    assert (
        invoke("run", "suite.yaml", "-c", "1", "--no-judge", "--fail-under", "0.5").exit_code == 0
    )
    server.queue(Reply.ok("hello"), Reply.ok("Lyon"))
    assert (
        invoke("run", "suite.yaml", "-c", "1", "--no-judge", "--fail-under", "0.6").exit_code == 1
    )


def test_errors_exit_1(server: FaultServer) -> None:
    server.default = Reply.error(400, "no such model")
    result = run_suite()
    assert result.exit_code == 1
    assert "ERROR demo/greet" in result.output
    assert "no such model" in result.output


def test_reports_are_written(server: FaultServer) -> None:
    answer_by_prompt(server)
    write("suite.yaml", SUITE)
    result = invoke(
        "run", "suite.yaml", "--no-judge",
        "-o", "out/run.json", "-o", "out/run.jsonl", "-o", "out/junit.xml", "-o", "out/run.html",
        "--summary-md", "out/summary.md",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    run = load_run(Path("out/run.json"))
    assert run.complete
    assert sorted(r.case_id for r in run.results) == ["capital", "greet"]
    assert run.config["suites"] == ["suite.yaml"]
    assert run.config["promptum_version"]
    lines = Path("out/run.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["case_id"] for line in lines) == ["capital", "greet"]
    suite = ET.parse("out/junit.xml").getroot()
    assert suite.iter("testcase").__next__() is not None
    assert "capital" in Path("out/run.html").read_text(encoding="utf-8")
    assert Path("out/summary.md").read_text(encoding="utf-8").strip()


def test_selection_and_overrides(server: FaultServer) -> None:
    answer_by_prompt(server)
    write("suite.yaml", SUITE)
    result = invoke("run", "suite.yaml", "--tag", "smoke", "--repeat", "3", "-m", "fault/other")
    assert result.exit_code == 0, result.output
    assert "Running 3 results of demo on fault/other" in result.output
    assert {r.body["model"] for r in server.requests} == {"other"}

    server.requests.clear()
    result = invoke("run", "suite.yaml", "-k", "cap*", "--judge", "fault/strict")
    assert "Running 1 result of" in result.output
    assert [r.body["model"] for r in server.requests] == ["m", "strict"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "suite.yaml", "-o", "report.pdf"], "-o report.pdf: unknown report format"),
        (["run", "suite.yaml", "--judge", "x/y", "--no-judge"], "exclude each other"),
        (["run", "suite.yaml", "-k", "nothing*"], "no case matches the given --filter/--tag"),
        (["run", "suite.yaml", "-m", "nowhere/m"], "unknown provider 'nowhere'"),
        (["run", "missing.yaml"], "missing.yaml: no such file or folder"),
        (["run", "bad.yaml"], "bad.yaml:2:5: test_cases[0].querry: unknown key 'querry'"),
        (["run", "suite.yaml", "--concurrency", "0"], "Invalid value for '-c' / '--concurrency'"),
        (["run", "suite.yaml", "--fail-under", "90"], "Invalid value for '--fail-under'"),
    ],
)
def test_invalid_input_exits_2_without_a_traceback(
    server: FaultServer, args: list[str], message: str
) -> None:
    write("suite.yaml", SUITE)
    write("bad.yaml", "test_cases:\n  - querry: hi\n    id: a\n")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert server.requests == []  # nothing was called


def test_colour_follows_the_terminal_and_no_color(
    server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer_by_prompt(server)
    write("suite.yaml", SUITE)
    colour = re.compile(r"\x1b\[[\d;]*(?:3[0-8]|9[0-7])[\d;]*m")  # a foreground colour
    monkeypatch.delenv("NO_COLOR", raising=False)  # whatever the developer's shell sets
    monkeypatch.setenv("FORCE_COLOR", "1")  # as a terminal would
    assert colour.search(invoke("run", "suite.yaml", "--no-judge").output)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour.search(invoke("run", "suite.yaml", "--no-judge").output)


def test_runs_are_recorded_in_the_history_unless_asked_not_to(server: FaultServer) -> None:
    answer_by_prompt(server)
    write("suite.yaml", SUITE)
    assert invoke("run", "suite.yaml", "--no-judge", "-o", "run.json").exit_code == 0
    run_id = load_run(Path("run.json")).run_id
    store = RunStore(Path(".promptum/runs.sqlite"))
    (recorded,) = store.list_runs()
    assert recorded.run_id == run_id
    assert len(store.load(run_id).results) == 2

    assert invoke("run", "suite.yaml", "--no-judge", "--no-store").exit_code == 0
    assert len(store.list_runs()) == 1


def test_an_unwritable_report_stops_no_other_report_nor_the_summary(
    server: FaultServer,
) -> None:
    answer_by_prompt(server)
    write("suite.yaml", SUITE)
    Path("blocked").write_text("a file where a folder is needed", encoding="utf-8")
    result = invoke(
        "run", "suite.yaml", "--no-judge", "-o", "blocked/run.html", "-o", "out/run.json"
    )  # fmt: skip
    assert result.exit_code == 2
    assert "could not write blocked/run.html" in result.output
    assert "Traceback" not in result.output
    assert "2 results" in result.output
    assert load_run(Path("out/run.json")).complete


def test_run_names_every_model_it_cannot_call_before_calling_any(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        models: [local/smolm2, opnai/gpt-4o-mini, gpt-4o]
        test_cases: [{id: a, query: hi, checks: [{type: max_length, value: 9}]}]
        """,
    )
    done = invoke("run", path, "--no-store")
    assert done.exit_code == 2, done.output
    assert "3 models cannot be called:" in done.output
    for hint in ("Did you mean 'local/smollm2'?", "Did you mean 'openai/gpt-4o-mini'?", "prefix"):
        assert hint in done.output
    assert "Running" not in done.output
