"""The fingerprint of a data file's rows, which share all but their id, messages and vars,
is the one earlier versions gave the same cases (a resume finds their journals by it)."""

from __future__ import annotations

from promptum.cases import GenerationParams, Grading, TestCase
from promptum.checks import CheckDefinition
from promptum.runner import plan_fingerprint
from promptum.values.run_result import Message

CHECKS = (
    CheckDefinition(type="contains", value="Paris"),
    CheckDefinition(type="expr", value="latency_ms < vars['limit']"),
)
PLAIN = CHECKS[:1]
PARAMS = GenerationParams(temperature=0.0)
MODELS = ("m1", "m2")


def _row(index: int, checks: tuple[CheckDefinition, ...] = CHECKS) -> TestCase:
    # Every field but the row's own is the same object, as rows built from one suite have.
    messages = (
        Message(role="system", content="terse"),
        Message(role="user", content=f"q é {index}"),
    )
    return TestCase(
        id=f"row-{index}",
        messages=messages,
        models=MODELS,
        params=PARAMS,
        suite="s",
        vars={"limit": 10 + index, "name": f"n{index}"},
        source=f"rows.csv:{index + 2}",
        grading=Grading(checks=checks, expected_behavior="names Paris"),
    )


def test_rows_whose_checks_read_vars_keep_the_fingerprint_earlier_versions_gave() -> None:
    # Known answers from 368f0ee, which encoded every case whole.
    assert plan_fingerprint([_row(i) for i in range(4)]) == "166610aba9636452"


def test_rows_whose_checks_do_not_read_vars_keep_the_fingerprint_earlier_versions_gave() -> None:
    assert plan_fingerprint([_row(i, PLAIN) for i in range(4)]) == "33b46615f7399876"


def test_rows_alternating_their_checks_keep_the_fingerprint_earlier_versions_gave() -> None:
    rows = [_row(0), _row(1, PLAIN), _row(2), _row(3, PLAIN)]
    assert plan_fingerprint(rows) == "ef1670974d719e9c"


def test_a_row_whose_text_holds_the_digest_mark_is_hashed_whole() -> None:
    odd = TestCase(
        id="\x00promptum-plan-digest:id",
        messages=(Message(role="user", content="\x00promptum-plan-digest:messages"),),
        models=MODELS,
        params=PARAMS,
        grading=Grading(checks=PLAIN),
    )
    assert plan_fingerprint([odd]) == "5a738c5ada861bba"
