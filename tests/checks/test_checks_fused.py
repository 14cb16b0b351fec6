"""A case's built-in checks graded in one function: the same grades as one check at a time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from promptum import Completion
from promptum.cases import Grading, TestCase
from promptum.checks import CheckDefinition
from promptum.checks._base import condition_check, fused_checks
from promptum.runner import grade
from promptum.validation import IsValidJson
from promptum.validation._json import json_problem
from promptum.values.grade import Grade

DEFINITIONS: list[dict[str, Any]] = [
    {"type": "contains", "value": "Paris"},
    {"type": "contains", "value": "PARIS", "case_insensitive": True},
    {"type": "not_contains", "value": "sorry"},
    {"type": "not_contains", "value": "SORRY", "case_insensitive": True},
    {"type": "regex", "value": r"\d{3}-\d{4}"},
    {"type": "regex", "value": r"^(\w+\s?)*$"},  # can backtrack: searched with the clock
    {"type": "not_regex", "value": r"(?i)sorry|apolog"},
    {"type": "not_regex", "value": r"(a+)+b"},
    {"type": "exact_match", "value": "42"},
    {"type": "exact_match", "value": "yes", "case_insensitive": True},
    {"type": "is_valid_json"},
    {"type": "max_latency_ms", "value": 5000},
    {"type": "max_cost_usd", "value": 0.01},
    {"type": "min_length", "value": 10},
    {"type": "max_length", "value": 30},
    {"type": "tool_called", "value": "search"},
]

RESPONSES = [
    Completion(text="Paris, call 555-1234", latency_ms=120.0, cost_usd=0.001),
    Completion(text="I'm sorry, as an AI I cannot", latency_ms=6120.4, cost_usd=None),
    Completion(text="  42\n", latency_ms=None, cost_usd=0.02),
    Completion(text=" YES ", latency_ms=10.0, cost_usd=0.0),
    Completion(text='```json\n{"city": "paris"}\n```', latency_ms=5000.0, cost_usd=0.01),
    Completion(text="", latency_ms=1.0, cost_usd=0.001),
]


def _case(definitions: list[dict[str, Any]]) -> TestCase:
    checks = tuple(CheckDefinition.model_validate(d) for d in definitions)
    return TestCase(id="fused", messages=(), grading=Grading(checks=checks))


@pytest.mark.parametrize("completion", RESPONSES, ids=range(len(RESPONSES)))
def test_a_plan_grades_as_its_checks_do_one_at_a_time(completion: Completion) -> None:
    case = _case(DEFINITIONS)
    one_at_a_time = [check.compiled(completion) for check in case.grading.checks]
    assert grade(case, completion) == one_at_a_time
    assert grade(case, completion) == one_at_a_time  # and again, from the kept plan
    assert {g.passed for g in one_at_a_time} == {True, False}  # both outcomes are exercised


@pytest.mark.parametrize(
    "value", ["{value}", "') or True or ('", "__import__('os').getcwd()", "text", "\\n{}"]
)
def test_a_suites_value_is_data_never_code(value: str) -> None:
    case = _case(
        [
            {"type": "contains", "value": value},
            {"type": "not_contains", "value": value},
            {"type": "exact_match", "value": value},
        ]
    )
    without, exactly = Completion(text="nothing here"), Completion(text=f" {value} ")
    assert [g.passed for g in grade(case, without)] == [False, True, False]
    assert [g.passed for g in grade(case, exactly)] == [True, False, True]
    assert grade(case, without)[0].reason == f"expected to contain {value!r}, got 'nothing here'"


def test_a_check_that_raises_in_a_plan_fails_naming_it_and_the_rest_are_graded() -> None:
    case = _case([{"type": "contains", "value": "a"}, {"type": "max_latency_ms", "value": 10}])
    contains, latency = grade(case, Completion(text="abc", latency_ms=float("nan")))
    assert contains.passed
    assert (latency.name, latency.passed) == ("max_latency_ms", False)
    assert latency.reason == "check raised ValueError: cannot convert float NaN to integer"


def test_a_raising_test_sends_the_whole_response_to_the_fallback() -> None:
    def boom(_text: str) -> bool:
        raise RuntimeError("boom")

    check = condition_check("x", "", "{boom}(text)", {"boom": boom}, lambda _: "")
    fallback_grade = Grade("check", "x", False, None, "fallback", "")
    run = fused_checks([check, check], lambda _completion: [fallback_grade])
    assert run(Completion(text="t")) == [fallback_grade]
    with pytest.raises(RuntimeError, match="boom"):
        check(Completion(text="t"))  # a check alone raises: its caller records it


def test_a_search_out_of_time_in_a_plan_fails_with_the_reason_once() -> None:
    # In a child process: if the pattern were searched without the clock, it would hang.
    program = """
        from promptum import Completion
        from promptum.checks import CheckDefinition
        from promptum.cases import Grading, TestCase
        from promptum.runner import grade
        checks = tuple(
            CheckDefinition(type=t, value=v)
            for t, v in [("contains", "a"), ("regex", r"^(a|aa)*$"), ("max_length", 100)]
        )
        case = TestCase(id="slow", messages=(), grading=Grading(checks=checks))
        for g in grade(case, Completion(text="a" * 60 + "b")):
            print(g.name, g.passed, g.reason)
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(program)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    contains, regex, length = done.stdout.splitlines()
    assert (contains, length) == ("contains True None", "max_length True None")
    assert regex.startswith("regex False regex took longer than 1 s on this response")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "The answer is 42.",
        "I'm sorry, I cannot",
        "Note: none",
        "nope",
        "\n\n  Sure!\n",
        "\ufeff{}",
        " \ufeff{}",
        "\u00a0{}",
        "Infinit",
        "-x",
        '{"a": 1',
        '{"a": 1} trailing',
        "[1, 2,]",
        "tru",
    ],
)
def test_json_problems_are_the_parsers_own_messages(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        json.loads(text)
    assert json_problem(text) == f"not valid JSON: {raised.value}"
    assert IsValidJson().validate(text) == (False, {"error": json_problem(text)})


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"a": [1, 2]}', None),
        ("NaN", None),
        (" -Infinity ", None),
        ('```json\n{"a": 1}\n```', None),
        ('```\n["a"]\n```', None),
        ("```json\nnope\n```", "fenced code block is not valid JSON: Expecting value: line 1"),
        ('```json\n{"a": 1,}\n```', "fenced code block is not valid JSON: Expecting property name"),
        ("```\n" + "[" * 100_000 + "\n```", "fenced code block is not valid JSON: nested too"),
        ("[" * 100_000, "not valid JSON: nested too deeply to parse"),
    ],
)
def test_json_raw_or_fenced(text: str, problem: str | None) -> None:
    found = json_problem(text)
    assert found == problem if problem is None else (found or "").startswith(problem)
    assert IsValidJson().check(text) is (problem is None)
