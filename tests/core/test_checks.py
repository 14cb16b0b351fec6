"""The ten check types of reference/deterministic-checks.md, their validation and their order."""

from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from promptum import Completion
from promptum.checks import CHECK_TYPES, CheckDefinition, CheckResult, evaluate_checks
from tests.support.reference import REFERENCE_YAML


def run_check(text: str = "", **definition: Any) -> CheckResult:
    completion = Completion(
        text=text,
        latency_ms=definition.pop("latency_ms", 120.0),
        cost_usd=definition.pop("cost_usd", 0.001),
    )
    return evaluate_checks([CheckDefinition(**definition)], completion)[0]


def test_the_ten_deterministic_types_similar_python_and_tool_checks_are_registered() -> None:
    assert sorted(CHECK_TYPES) == sorted(
        [
            "contains",
            "not_contains",
            "regex",
            "not_regex",
            "exact_match",
            "starts_with",  # the everyday checks of issue 26: tests/checks/test_everyday_checks.py
            "ends_with",
            "contains_any",
            "contains_all",
            "levenshtein",
            "approx",  # a number within a tolerance: tests/checks/test_approx_check.py
            "rouge",
            "bleu",
            "is_valid_json",
            "max_latency_ms",
            "max_cost_usd",
            "min_length",
            "max_length",
            "similar",  # runs an embedding model: tests/core/test_similar.py
            "python",  # runs the user's function: tests/core/test_python_checks.py
            "expr",  # a sandboxed Jinja expression: tests/checks/test_expr.py
            "answered",  # the provider answered without error: tests/checks/test_answered.py
            "tool_called",  # read the completion's tool calls: tests/targets/test_tool_checks.py
            "tool_not_called",
            "tool_order",
            "tool_args",
            "canary_not_leaked",  # the red-team detectors: tests/checks/test_detectors.py
            "no_exfiltration",
            "secret_not_leaked",
            "pii_not_leaked",  # tests/checks/test_detectors_labelled.py
            "field_not_hijacked",  # tests/checks/test_field_hijack.py
        ]
    )


@pytest.mark.parametrize(
    ("definition", "text", "passed"),
    [
        ({"type": "contains", "value": '"name"'}, '{"name": "Ada"}', True),
        ({"type": "contains", "value": "Paris"}, "paris", False),
        ({"type": "contains", "value": "Paris", "case_insensitive": True}, "PARIS!", True),
        ({"type": "not_contains", "value": "sorry"}, "Here you go", True),
        ({"type": "not_contains", "value": "sorry"}, "I am sorry", False),
        ({"type": "not_contains", "value": "SORRY", "case_insensitive": True}, "sorry", False),
        ({"type": "regex", "value": r"\d{4}"}, "in 1969", True),
        ({"type": "regex", "value": r"^\d+$"}, "12 monkeys", False),
        ({"type": "regex", "value": "^paris", "case_insensitive": True}, "Paris is", True),
        ({"type": "not_regex", "value": r"as an ai"}, "Sure!", True),
        ({"type": "not_regex", "value": r"as an ai", "case_insensitive": True}, "As an AI", False),
        ({"type": "exact_match", "value": "4"}, "  4\n", True),
        ({"type": "exact_match", "value": "4"}, "4.", False),
        ({"type": "exact_match", "value": "yes", "case_insensitive": True}, " YES ", True),
        ({"type": "is_valid_json"}, '{"a": [1, 2]}', True),
        ({"type": "is_valid_json"}, '```json\n{"a": 1}\n```', True),
        ({"type": "is_valid_json"}, 'Sure! {"a": 1}', False),
        ({"type": "min_length", "value": 3}, "abc", True),
        ({"type": "min_length", "value": 3}, "ab", False),
        ({"type": "max_length", "value": 3}, "abc", True),
        ({"type": "max_length", "value": 3}, "abcd", False),
    ],
)
def test_text_checks(definition: dict[str, Any], text: str, passed: bool) -> None:
    result = run_check(text, **definition)
    assert result.type == definition["type"]
    assert result.passed is passed
    assert (result.reason is None) is passed


def test_failure_reasons_say_what_to_fix() -> None:
    assert run_check("{}", type="contains", value='"name"').reason == (
        "expected to contain '\"name\"', got '{}'"
    )
    assert run_check("x", type="max_latency_ms", value=5000, latency_ms=6120.4).reason == (
        "latency 6120 ms > 5000 ms"
    )
    assert run_check("I'm sorry", type="not_regex", value="sorry|apolog").reason == (
        "expected not to match /sorry|apolog/, found 'sorry'"
    )
    assert run_check("Paris.", type="exact_match", value="Paris").reason == (
        "expected 'Paris', got 'Paris.'"
    )
    assert run_check("abcd", type="max_length", value=3).reason == (
        "length 4 > 3 characters, got 'abcd'"
    )
    assert run_check("x", type="is_valid_json").reason.startswith("not valid JSON")


@pytest.mark.parametrize(
    ("latency", "limit", "passed"), [(4999.9, 5000, True), (5000, 5000, True), (5001, 5000, False)]
)
def test_max_latency_reads_the_completion(latency: float, limit: int, passed: bool) -> None:
    assert run_check(type="max_latency_ms", value=limit, latency_ms=latency).passed is passed


def test_max_cost_reads_the_completion() -> None:
    assert run_check(type="max_cost_usd", value=0.01, cost_usd=0.004).passed is True
    result = run_check(type="max_cost_usd", value=0.01, cost_usd=0.02)
    assert result.passed is False
    assert result.reason == "cost $0.02 > $0.01"
    assert run_check(type="max_cost_usd", value=0, cost_usd=0.0).passed is True


def test_a_figure_just_over_its_budget_is_not_said_as_the_budget() -> None:
    cost = run_check(type="max_cost_usd", value=1, cost_usd=1.000002)
    assert (cost.passed, cost.reason) == (False, "cost $1.000002 > $1")
    latency = run_check(type="max_latency_ms", value=5000, latency_ms=5000.4)
    assert (latency.passed, latency.reason) == (False, "latency 5000.4 ms > 5000 ms")


def test_an_unknown_cost_fails_with_a_reason() -> None:
    result = run_check(type="max_cost_usd", value=1.0, cost_usd=None)
    assert result.passed is False
    assert result.reason is not None
    assert "cost was not reported" in result.reason


def test_an_unmeasured_latency_fails_with_a_reason() -> None:
    result = run_check(type="max_latency_ms", value=1000, latency_ms=None)
    assert result.passed is False
    assert result.reason == "latency was not measured for this call"


def test_results_come_in_declaration_order() -> None:
    definitions = [
        CheckDefinition(type=name, value=value)
        for name, value in [
            ("max_length", 100),
            ("contains", "a"),
            ("is_valid_json", None),
            ("regex", "b"),
            ("min_length", 1),
        ]
    ]
    results = evaluate_checks(definitions, Completion(text="ab"))
    assert [r.type for r in results] == [d.type for d in definitions]
    assert [r.passed for r in results] == [True, True, False, True, True]


class ExplodingDefinition(CheckDefinition):
    """A definition whose compiled check raises, as a buggy plugin check would."""

    @property
    def compiled(self) -> Any:
        def explode(_: Completion) -> CheckResult:
            raise RuntimeError("boom")

        return explode


def test_a_check_that_raises_is_a_failed_check() -> None:
    definitions = [
        ExplodingDefinition(type="contains", value="x"),
        CheckDefinition(type="contains", value="x"),
    ]
    results = evaluate_checks(definitions, Completion(text="x"))
    assert results[0].passed is False
    assert results[0].reason == "check raised RuntimeError: boom"
    assert results[1].passed is True


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        (
            {"type": "contans", "value": "x"},
            "unknown check type 'contans'. Did you mean 'contains'?",
        ),
        ({"type": "nope"}, "Valid types: contains, not_contains, regex"),
        ({"type": "contains"}, "check 'contains' needs a `value`: a string"),
        ({"type": "contains", "value": 5}, "needs a string value, got int 5"),
        ({"type": "contains", "value": ""}, "needs a non-empty string"),
        ({"type": "regex", "value": "(unclosed"}, "invalid regular expression '(unclosed'"),
        ({"type": "not_regex", "value": "*"}, "invalid regular expression"),
        ({"type": "regex", "value": "\b4\b"}, "holds a backspace character"),  # "\b" in YAML
        ({"type": "max_latency_ms", "value": -1}, "needs a non-negative number, got -1"),
        ({"type": "max_cost_usd", "value": "cheap"}, "needs a non-negative number"),
        ({"type": "max_cost_usd", "value": True}, "needs a non-negative number, got True"),
        ({"type": "max_cost_usd", "value": float("nan")}, "needs a non-negative number"),
        ({"type": "min_length", "value": 2.5}, "needs a non-negative integer, got 2.5"),
        ({"type": "is_valid_json", "value": "x"}, "takes no value"),
        ({"type": "max_length", "value": 3, "case_insensitive": True}, "only to string checks"),
        ({"type": "contains", "value": "x", "vaule": 1}, "Extra inputs are not permitted"),
    ],
)
def test_invalid_definitions_are_rejected_at_load_time(
    definition: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        CheckDefinition.model_validate(definition)
    assert message in str(raised.value)


def test_integral_float_is_accepted_for_lengths() -> None:
    assert run_check("abc", type="min_length", value=3.0).passed is True


def test_the_reference_example_checks_load_and_run() -> None:
    case = yaml.safe_load(REFERENCE_YAML)["test_cases"][0]
    definitions = [CheckDefinition.model_validate(c) for c in case["checks"]]
    passing = Completion(text='```json\n{"name": "Ada"}\n```', latency_ms=800)
    assert [r.passed for r in evaluate_checks(definitions, passing)] == [True, True, True]
    failing = Completion(text="Sure, here is the profile.", latency_ms=6120)
    results = evaluate_checks(definitions, failing)
    assert [r.passed for r in results] == [False, False, False]
    assert results[2].reason == "latency 6120 ms > 5000 ms"


def test_definitions_round_trip_through_json() -> None:
    definition = CheckDefinition(type="regex", value="a+", case_insensitive=True)
    again = CheckDefinition.model_validate_json(definition.model_dump_json())
    assert again == definition
    assert again.compiled(Completion(text="AAA")).passed is True


def test_a_failed_check_grade_is_the_one_its_constructor_makes() -> None:
    from promptum.checks._base import check_result, failed_grade
    from promptum.values.grade import Grade

    built = failed_grade("contains", "Response contains 'x'", "expected to contain 'x'")
    assert built == Grade(
        "check", "contains", False, None, "expected to contain 'x'", "Response contains 'x'"
    )
    assert built.details == {}
    assert built.details is not failed_grade("contains", "d", "r").details  # one dict each
    assert check_result(built) == CheckResult(
        "contains", False, "Response contains 'x'", "expected to contain 'x'"
    )
