"""`promptum validate` counts the checks a run grades: the two numbers agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import invoke
from tests.support.fault_server import FaultServer, Reply

# A default check, written checks, and a response_model: each response is also graded on
# fitting its schema, which is a check of the run's too.
SUITE = """\
name: counted
models: [fault/m]
defaults:
  checks: [{type: max_length, value: 500}]
test_cases:
  - id: greets
    query: Say hello
    checks: [{type: contains, value: hello}, {type: not_contains, value: bye}]
  - id: city
    query: Which city?
    response_model:
      type: object
      properties: {city: {type: string}}
      required: [city]
    expected: {city: Berlin}
  - id: plain
    query: Say hello
    checks: [{type: contains, value: hello}]
"""


def _validated_checks(output: str) -> int:
    found = re.search(r"✓ suite\.yaml: \d+ cases?, (?:up to )?(\d+) checks?", output)
    assert found is not None, output
    return int(found[1])


def _graded_checks(output: str) -> int:
    found = re.search(r"Checks: \d+/(\d+) passed", output)
    assert found is not None, output
    return int(found[1])


CITY_MODEL = """\
from pydantic import BaseModel


class City(BaseModel):
    city: str
"""


@pytest.mark.parametrize("response_model", ["json schema", "pydantic"])
def test_validate_counts_as_many_checks_as_a_run_grades(
    server: FaultServer, response_model: str
) -> None:
    server.default = Reply.ok('{"city": "Berlin"}')
    suite = SUITE
    if response_model == "pydantic":
        Path("city_model.py").write_text(CITY_MODEL, encoding="utf-8")
        schema = suite[suite.index("    response_model:") : suite.index("    expected:")]
        suite = suite.replace(schema, "    response_model: city_model:City\n")
    Path("suite.yaml").write_text(suite, encoding="utf-8")
    validated = invoke("validate", "suite.yaml")
    assert validated.exit_code == 0, validated.output
    ran = invoke("run", "suite.yaml", "--no-store", "--no-cache", "-c", "1")
    assert ran.exit_code == 1, ran.output  # `greets` fails: the reply says no hello
    assert _validated_checks(validated.output) == _graded_checks(ran.output) == 7


def test_validate_says_which_checks_are_response_schemas(server: FaultServer) -> None:
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    validated = invoke("validate", "suite.yaml")
    assert validated.output.startswith(
        "✓ suite.yaml: 3 cases, 7 checks (6 written, 1 response schema)\n"
    ), validated.output


def test_each_scripted_turn_counts_the_case_checks_as_a_run_grades_them(
    server: FaultServer,
) -> None:
    server.default = Reply.ok('{"city": "Paris"}')
    conversation = """\
  - id: talk
    response_model: {type: object, properties: {city: {type: string}}}
    turns:
      - query: Hi
      - query: Capital?
        checks: [{type: contains, value: Paris}]
    conversation:
      checks: [{type: not_contains, value: SAVE20}]
"""
    Path("suite.yaml").write_text(SUITE + conversation, encoding="utf-8")
    validated = invoke("validate", "suite.yaml")
    assert validated.exit_code == 0, validated.output
    ran = invoke("run", "suite.yaml", "--no-store", "--no-cache", "-c", "1")
    assert ran.exit_code == 1, ran.output
    # The turns: 2 default checks, 1 of turn 2, 2 schemas; the conversation's 1.
    assert _validated_checks(validated.output) == _graded_checks(ran.output) == 7 + 6


def test_a_simulated_conversation_counts_the_checks_of_its_every_turn(
    server: FaultServer,
) -> None:
    simulated = """\
  - id: haggles
    simulate:
      model: fault/user
      goal: Get a refund
      max_turns: 3
      stop: [{type: contains, value: never said}]
"""
    Path("suite.yaml").write_text(SUITE + simulated, encoding="utf-8")
    validated = invoke("validate", "suite.yaml")
    assert validated.exit_code == 0, validated.output
    assert ", up to 10 checks (" in validated.output  # it may reach its goal sooner
    ran = invoke("run", "suite.yaml", "--no-store", "--no-cache", "-c", "1")
    assert ran.exit_code == 1, ran.output
    # Its 3 turns, each graded by the default check; the stop check grades nothing.
    assert _validated_checks(validated.output) == _graded_checks(ran.output) == 7 + 3
