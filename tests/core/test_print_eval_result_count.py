"""`print_eval_result`'s first line counts the assertions that failed, not all of them."""

from __future__ import annotations

import pytest

from promptum.evaluations import evaluate, print_eval_result

OUTPUT = {"order_id": "A-17", "priority": "low", "refund_to": "ACC-1"}


def first_line(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().out.splitlines()[0]


def test_one_failed_of_three_says_one_of_three(capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluate(
        OUTPUT,
        expected={"order_id": "A-17", "priority": "low"},
        attack_target={"refund_to": "ACC-1"},
    )
    print_eval_result(result, output=OUTPUT)
    assert first_line(capsys) == "❌ FAILED: 1 of 3 assertions failed"


def test_two_failed_of_three(capsys: pytest.CaptureFixture[str]) -> None:
    result = evaluate(
        OUTPUT, expected={"order_id": "B-2", "priority": "high", "refund_to": "ACC-1"}
    )
    print_eval_result(result)
    assert first_line(capsys) == "❌ FAILED: 2 of 3 assertions failed"


def test_passing_counts_what_held_in_the_singular_too(capsys: pytest.CaptureFixture[str]) -> None:
    print_eval_result(evaluate(OUTPUT, expected={"order_id": "A-17", "priority": "low"}))
    assert first_line(capsys) == "✅ PASSED: 2 assertions held"
    print_eval_result(evaluate(OUTPUT, expected={"order_id": "A-17"}))
    assert first_line(capsys) == "✅ PASSED: 1 assertion held"
    print_eval_result(evaluate(OUTPUT, expected={"order_id": "B-2"}))
    assert first_line(capsys) == "❌ FAILED: 1 of 1 assertion failed"
