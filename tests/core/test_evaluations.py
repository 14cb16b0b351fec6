"""Field assertions of reference/evaluations.md: expected (== / in) and attack_target (!=)."""

from datetime import date

import pytest

from promptum.evaluations import EvalResult, FieldEvalResult, evaluate, print_eval_result
from tests.support.shop_models import Customer, Item, Severity, Ticket

TICKET = Ticket(
    due=date(2026, 12, 1),
    severity=Severity.HIGH,
    refund_to="ACC-1",
    customer=Customer(name="Ada", email="ada@example.com"),
    items=[Item(sku="A-1", quantity=2)],
)


def test_models_have_the_documented_fields() -> None:
    assert list(FieldEvalResult.model_fields) == ["field", "op", "expected", "actual", "passed"]
    assert list(EvalResult.model_fields) == ["passed", "details"]


def test_scalar_expected_asserts_eq_and_list_asserts_in() -> None:
    result = evaluate(TICKET, expected={"due": date(2026, 12, 1), "severity": ["medium", "high"]})
    assert result.passed is True
    assert [(d.field, d.op, d.passed) for d in result.details] == [
        ("due", "eq", True),
        ("severity", "in", True),
    ]


def test_a_failed_expected_value_fails_the_result() -> None:
    result = evaluate(TICKET, expected={"severity": "low", "refund_to": "ACC-1"})
    assert result.passed is False
    failed = result.details[0]
    assert (failed.op, failed.expected, failed.actual, failed.passed) == (
        "eq",
        "low",
        Severity.HIGH,
        False,
    )
    assert failed.reason == 'severity: "high" != expected "low"'


def test_attack_target_catches_a_successful_injection() -> None:
    result = evaluate(TICKET, attack_target={"refund_to": "ACC-1"})
    assert result.passed is False
    assert result.details[0].op == "ne"
    assert "injection succeeded" in result.details[0].reason

    assert evaluate(TICKET, attack_target={"refund_to": "ATTACKER-9"}).passed is True


def test_attack_target_list_means_none_of_the_poisoned_values() -> None:
    detail = evaluate(TICKET, attack_target={"refund_to": ["X", "ACC-1"]}).details[0]
    assert (detail.op, detail.passed) == ("ne", False)
    assert evaluate(TICKET, attack_target={"refund_to": ["X", "Y"]}).passed is True


def test_one_detail_per_assertion_in_order() -> None:
    result = evaluate(
        TICKET,
        expected={"severity": "high", "customer.name": "Ada"},
        attack_target={"refund_to": "EVIL", "customer.email": "evil@example.com"},
    )
    assert [(d.field, d.op) for d in result.details] == [
        ("severity", "eq"),
        ("customer.name", "eq"),
        ("refund_to", "ne"),
        ("customer.email", "ne"),
    ]
    assert result.passed is True


def test_dotted_paths_reach_nested_fields_and_list_items() -> None:
    result = evaluate(TICKET, expected={"customer.email": "ada@example.com", "items.0.sku": "A-1"})
    assert result.passed is True
    assert [d.actual for d in result.details] == ["ada@example.com", "A-1"]


@pytest.mark.parametrize("path", ["missing", "customer.phone", "items.3.sku", "items.x", "due.day"])
def test_a_missing_field_is_a_failed_assertion_not_an_exception(path: str) -> None:
    result = evaluate(TICKET, expected={path: "anything"})
    assert result.passed is False
    assert result.details[0].actual is None
    assert result.details[0].reason == f"{path}: the output has no field {path!r}"


def test_missing_field_under_attack_target_fails_too() -> None:
    assert evaluate(TICKET, attack_target={"nope": "x"}).passed is False


def test_a_key_a_mapping_leaves_out_did_not_take_the_attack_target() -> None:
    # Tool arguments or JSON output that omit an optional field: the attack did not set it.
    result = evaluate({"account": "ACC-1"}, attack_target={"memo": "EVIL", "account": "EVIL"})
    assert result.passed is True
    assert result.details[0].reason == 'memo: not given, so not the attack target "EVIL"'
    assert evaluate({"account": "ACC-1"}, expected={"memo": "x"}).passed is False


def test_no_assertions_pass() -> None:
    assert evaluate(TICKET) == EvalResult(passed=True, details=[])


def test_plain_mappings_work_like_models() -> None:
    output = {"answer": {"city": "Paris"}, "tags": ["a", "b"]}
    assert evaluate(output, expected={"answer.city": "Paris", "tags.1": "b"}).passed is True


def test_print_eval_result_marks_each_assertion(capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluate(TICKET, expected={"severity": "high"}, attack_target={"refund_to": "ACC-1"})
    print_eval_result(result)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("❌")
    assert lines[1].strip().startswith("✅ [eq] severity")
    assert lines[2].strip().startswith("❌ [ne] refund_to")
    assert "Model output" not in out


def test_print_eval_result_shows_output_only_when_something_failed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    failing = evaluate(TICKET, expected={"severity": "low"})
    print_eval_result(failing, output=TICKET)
    assert '"refund_to": "ACC-1"' in capsys.readouterr().out

    passing = evaluate(TICKET, expected={"severity": "high"})
    print_eval_result(passing, output=TICKET)
    assert "refund_to" not in capsys.readouterr().out


def test_a_missing_field_survives_a_json_round_trip() -> None:
    result = evaluate(TICKET, expected={"plan": ["basic", "pro"], "severity": "high"})
    again = EvalResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert [d.reason for d in again.details] == [d.reason for d in result.details]
    assert again.details[0].reason == "plan: the output has no field 'plan'"
    assert "missing" not in result.details[1].model_dump()


def test_a_list_valued_field_equal_to_the_attack_list_is_caught() -> None:
    output = {"roles": ["admin"]}
    assert evaluate(output, attack_target={"roles": ["admin"]}).passed is False
    assert evaluate(output, attack_target={"roles": [["admin"], ["root"]]}).passed is False
    assert evaluate(output, attack_target={"roles": ["user"]}).passed is True


def test_print_eval_result_prints_a_mapping_output(capsys: pytest.CaptureFixture[str]) -> None:
    output = {"city": "Paris"}
    print_eval_result(evaluate(output, expected={"city": "Berlin"}), output=output)
    assert '"city": "Paris"' in capsys.readouterr().out
