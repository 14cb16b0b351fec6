"""Transforms end to end through `promptum run` on a real local OpenAI-compatible server.

A case's (or the suite's default) transform replaces the response every check and field
assertion of the case sees; a check's own transform applies on top, for it alone. A
transform that fails makes the grades that needed it errors, never passes. The reports and
the run store keep what the checks saw beside the answer.
"""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.reporting import load_run
from promptum.runner import grade
from promptum.store import RunStore
from promptum.suites import load_suite
from promptum.values.completion import Completion
from tests.support.fault_server import FaultServer, Reply, project_fault_server

ANSWER = '  {"status": "ok", "answer": "Ahoy there, matey", "n": 3}  '


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FaultServer]:
    with project_fault_server(tmp_path, monkeypatch) as running:
        running.default = Reply.ok(ANSWER)
        yield running


def run(suite: str, *reports: str) -> Result:
    Path("suite.yaml").write_text(textwrap.dedent(suite), encoding="utf-8")
    outputs = [arg for report in reports for arg in ("-o", report)]
    return CliRunner().invoke(
        main, ["run", "suite.yaml", "-c", "1", "--no-cache", *outputs], catch_exceptions=False
    )


def grades_of(report: str = "report.json") -> dict[str, list[dict[str, Any]]]:
    data = json.loads(Path(report).read_text(encoding="utf-8"))
    return {result["case_id"]: result["grades"] for result in data["results"]}


SUITE = """\
models: [fault/m]
vars: {greeting: Ahoy}
defaults:
  transform: "output | trim"
test_cases:
  - id: default-transform
    query: hi
    checks:
      - {type: exact_match, value: '{"status": "ok", "answer": "Ahoy there, matey", "n": 3}'}
      - {type: expr, value: "output is startswith('{') and output is endswith('}')"}
  - id: own-transform
    query: hi
    transform: "json.answer"
    checks:
      - {type: expr, value: "output.startswith(vars.greeting)"}
      - {type: exact_match, value: "Ahoy there, matey"}
      - {type: exact_match, value: matey, transform: "output.split(' ') | last"}
  - id: check-transform-only-for-its-check
    query: hi
    transform: "json.answer | upper"
    checks:
      - {type: contains, value: AHOY}
      - {type: contains, value: ahoy, transform: "output | lower"}
      - {type: contains, value: AHOY}
"""


def test_transforms_apply_to_the_checks_and_are_recorded(server: FaultServer) -> None:
    result = run(SUITE, "report.json")
    assert result.exit_code == 0, result.output
    grades = grades_of()
    assert all(g["passed"] for case in grades.values() for g in case), grades

    trimmed = ANSWER.strip()
    assert [g["details"]["transformed"] for g in grades["default-transform"]] == [trimmed] * 2
    own = [g["details"]["transformed"] for g in grades["own-transform"]]
    assert own == ["Ahoy there, matey", "Ahoy there, matey", "matey"]
    # A check's transform sees the case's transformed text; the next check does not see it.
    seen = [g["details"]["transformed"] for g in grades["check-transform-only-for-its-check"]]
    assert seen == ["AHOY THERE, MATEY", "ahoy there, matey", "AHOY THERE, MATEY"]


def test_a_failing_transform_makes_the_grades_that_needed_it_errors(server: FaultServer) -> None:
    result = run(
        """\
        models: [fault/m]
        test_cases:
          - id: case-transform
            query: hi
            transform: "json.missing"
            checks:
              - {type: contains, value: Ahoy}
              - {type: expr, value: "true"}
          - id: check-transform
            query: hi
            checks:
              - {type: contains, value: Ahoy}
              - {type: contains, value: Ahoy, transform: "(output | from_json).nope | upper"}
          - id: not-json
            query: hi
            transform: "output | from_json"
            checks:
              - {type: contains, value: Ahoy}
        """,
        "report.json",
    )
    assert result.exit_code == 1, result.output
    grades = grades_of()
    case_level = grades["case-transform"]
    assert [(g["name"], g["passed"]) for g in case_level] == [("contains", False), ("expr", False)]
    for g in case_level:
        assert g["error"].startswith("transform `json.missing` failed: json has no field 'missing'")
    own, other = grades["check-transform"][1], grades["check-transform"][0]
    assert other["passed"]  # its neighbour is not touched
    assert other["error"] is None
    assert own["error"].startswith("transform `(output | from_json).nope | upper` failed: ")
    assert "ERROR suite/case-transform" in result.output
    data = json.loads(Path("report.json").read_text(encoding="utf-8"))
    assert {r["case_id"]: r["status"] for r in data["results"]} == {
        "case-transform": "error",
        "check-transform": "error",
        "not-json": "pass",  # the answer is JSON: a mapping's JSON is the text
    }


def test_a_mapping_replaces_the_structured_output_the_field_assertions_see(
    server: FaultServer,
) -> None:
    server.default = Reply.ok('{"reply": {"city": "Rome", "days": 3}, "note": "x"}')
    result = run(
        """\
        models: [fault/m]
        test_cases:
          - id: nested
            query: hi
            response_model:
              type: object
              properties:
                reply: {type: object}
                note: {type: string}
            transform: "json.reply"
            expected: {city: Rome, days: 3}
            checks:
              - {type: expr, value: "json.city == 'Rome' and json.days == 3"}
              - {type: contains, value: '"city": "Rome"'}
        """,
        "report.json",
    )
    assert result.exit_code == 0, result.output
    grades = grades_of()["nested"]
    kinds = [(g["kind"], g["name"]) for g in grades]
    assert kinds == [
        ("check", "expr"),
        ("check", "contains"),
        ("check", "response_schema"),  # the output fits the schema: a grade of its own
        ("assertion", "city"),
        ("assertion", "days"),
    ]
    assert all(g["passed"] for g in grades), grades
    assert grades[0]["details"]["transformed"] == '{"city": "Rome", "days": 3}'


def test_reports_and_the_store_show_the_answer_and_what_the_checks_saw(
    server: FaultServer,
) -> None:
    result = run(SUITE, "report.json", "report.html", "report.xml")
    assert result.exit_code == 0, result.output

    html = Path("report.html").read_text(encoding="utf-8")
    assert "Response after transform" in html  # the detail view's section
    assert '"v":["Ahoy there, matey","matey"]' in html  # the cell's data: both texts seen

    junit = ET.parse("report.xml").getroot()
    outs = [el.text or "" for el in junit.iter("system-out")]
    assert any("response after transform:\nmatey" in out for out in outs)
    assert any(f"response:\n{ANSWER}" in out for out in outs)

    reloaded = load_run(Path("report.json"))
    seen = [g.details.get("transformed") for r in reloaded.results for g in r.grades]
    assert "matey" in seen

    store = RunStore(Path("runs.db"))
    (stored,) = store.list_runs()
    by_case = {r.case_id: r for r in store.load(stored.run_id).results}
    assert by_case["own-transform"].completion.text == ANSWER
    assert [g.details["transformed"] for g in by_case["own-transform"].grades][-1] == "matey"


def test_without_transforms_nothing_is_recorded(server: FaultServer) -> None:
    result = run(
        """\
        models: [fault/m]
        test_cases:
          - id: plain
            query: hi
            checks:
              - {type: contains, value: Ahoy}
              - {type: expr, value: "'Ahoy' in output"}
        """,
        "report.json",
        "report.html",
        "report.xml",
    )
    assert result.exit_code == 0, result.output
    assert "transformed" not in Path("report.json").read_text(encoding="utf-8")
    assert '"v":' not in Path("report.html").read_text(encoding="utf-8")
    assert "after transform" not in Path("report.xml").read_text(encoding="utf-8")


def test_an_unknown_var_in_a_transform_is_a_located_load_error(server: FaultServer) -> None:
    result = run(
        """\
        models: [fault/m]
        vars: {lang: en}
        defaults:
          transform: "output ~ vars.lnag"
        test_cases:
          - id: a
            query: hi
          - id: b
            query: hi
            transform: "output | trim | lenght"
        """
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    # The suite's default, filled in for a case, fails at that case (as templates do).
    assert (
        "suite.yaml:6:5: test_cases[0]: defaults.transform: `vars.lnag` is not defined for "
        "this case. Did you mean 'vars.lang'?"
    ) in result.output
    assert (
        "suite.yaml:10:5: test_cases[1].transform: unknown filter 'lenght'. Did you mean 'length'?"
    ) in result.output
    assert server.requests == []  # nothing ran


@pytest.mark.slow
@pytest.mark.embedded_model
def test_transforms_and_expressions_on_the_embedded_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTUM_DB", str(tmp_path / "runs.db"))
    result = run(
        """\
        models: [local/smollm2]
        defaults:
          params: {max_tokens: 16, temperature: 0}
          transform: "output | trim | upper"
        test_cases:
          - id: shout
            query: Say hello.
            checks:
              - {type: expr, value: "output == output | upper and output | length > 0"}
              - {type: expr, value: "tokens.output > 0 and latency_ms > 0"}
              - {type: expr, value: "output | lower == output", transform: "output | lower"}
        """,
        "report.json",
    )
    assert result.exit_code == 0, result.output
    (grades,) = grades_of().values()
    assert all(g["passed"] for g in grades), grades
    assert grades[0]["details"]["transformed"] == grades[0]["details"]["transformed"].upper()


def test_the_example_of_docs_expressions_runs_as_shown(server: FaultServer) -> None:
    doc = (Path(__file__).parents[2] / "docs" / "expressions.md").read_text(encoding="utf-8")
    example = doc.split("```yaml\n", 1)[1].split("```", 1)[0]
    server.default = Reply.ok('\n{"status": "ok", "answer": "Ahoy there, matey"}\n')
    result = run("models: [fault/m]\n" + example, "report.json")
    assert result.exit_code == 0, result.output
    grades = grades_of()
    assert [len(case) for case in grades.values()] == [4, 2]
    assert grades["the-answer-only"][1]["details"]["transformed"] == "matey"


def test_a_case_with_expressions_crosses_to_another_process_as_ray_sends_it(
    tmp_path: Path,
) -> None:
    # Ray's own pickler, imported here: importing Ray costs a second.
    cloudpickle = pytest.importorskip("ray.cloudpickle")

    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    cases = load_suite(path).cases
    sent = cloudpickle.loads(cloudpickle.dumps(cases))
    answer = Completion(text=ANSWER)
    for before, after in zip(cases, sent, strict=True):
        assert after.grading.transform == before.grading.transform
        assert grade(after, answer) == grade(before, answer)
        assert all(g.passed for g in grade(after, answer))


def test_a_python_check_sees_its_transform_and_its_vars(server: FaultServer) -> None:
    Path("checks.py").write_text(
        "def shouts(check):\n"
        "    return check.text == check.vars['greeting'].upper() + ' THERE, MATEY'\n",
        encoding="utf-8",
    )
    result = run(
        """\
        models: [fault/m]
        vars: {greeting: Ahoy}
        test_cases:
          - id: a
            query: hi
            transform: "json.answer"
            checks:
              - {type: python, value: "checks.py:shouts", transform: "output | upper"}
              - {type: python, value: "checks.py:shouts", transform: "output.nope()"}
        """,
        "report.json",
    )
    assert result.exit_code == 1, result.output
    shouted, broken = grades_of()["a"]
    assert (shouted["kind"], shouted["passed"]) == ("custom", True)
    assert shouted["details"]["transformed"] == "AHOY THERE, MATEY"
    assert (broken["kind"], broken["passed"]) == ("custom", False)
    assert broken["error"].startswith("transform `output.nope()` failed: ")
