"""Issue 40 item 4: the `approx` check type, and field assertions with a tolerance and read
amounts and dates, loaded from a suite and run against an app that extracts a receipt."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from promptum import Completion, Session
from promptum.checks import CheckDefinition
from promptum.values.grade import Grade
from tests.support.cli import usage_error, write


def grade(text: str, **definition: Any) -> Grade:
    """The grade of one check on a response, as the runner gets it."""
    return CheckDefinition(**definition).compiled(Completion(text=text))


@pytest.mark.parametrize(
    ("text", "value", "passed"),
    [
        ("12.5", 12.5, True),
        (" 12.50 €\n", {"approx": 12.5, "abs": 0.01}, True),
        ("12.51", {"approx": 12.5, "abs": 0.01}, True),
        ("12.52", {"approx": 12.5, "abs": 0.01}, False),
        ("1,015", {"approx": 1000, "rel": 0.02}, True),
        ("12.6", 12.5, False),
        ("The total is 12.50", {"approx": 12.5, "abs": 1}, False),
    ],
)
def test_approx_reads_the_response_as_one_number(text: str, value: Any, passed: bool) -> None:
    assert grade(text, type="approx", value=value).passed is passed


def test_a_failure_says_what_was_read_and_the_bound() -> None:
    far = grade("12.6", type="approx", value={"approx": 12.5, "abs": 0.01})
    assert far.reason == "'12.6' is not within 12.5 ± 0.01"
    words = grade("about twelve", type="approx", value={"approx": 12.5, "abs": 0.01})
    assert words.reason == "expected one number within 12.5 ± 0.01, got 'about twelve'"


def test_a_transform_gives_approx_the_value_of_an_expression() -> None:
    definition = CheckDefinition(
        type="approx", value={"approx": 12.5, "abs": 0.01}, transform="json.total"
    )
    assert definition.compiled(Completion(text='{"total": 12.505}')).passed
    assert not definition.compiled(Completion(text='{"total": 13}')).passed


APP = '''
def answer(query):
    """A receipt extractor that writes amounts and dates the way receipts do."""
    return {"total": "12.53 €", "net": "1.234,50", "date": "5 March 2024", "items": 3}
'''

MODEL = """
defaults:
  response_model:
    type: object
    properties:
      total: {type: string}
      net: {type: string}
      date: {type: string}
      items: {type: integer}
"""


def receipt_suite(folder: Path, cases: str) -> Path:
    write(folder / "app.py", APP)
    return write(
        folder / "suite.yaml",
        "name: receipts\ntarget: app.py:answer\n"
        + textwrap.dedent(MODEL)
        + "test_cases:\n"
        + textwrap.indent(textwrap.dedent(cases), "  "),
    )


def test_a_suite_asserts_extracted_fields_within_tolerance(tmp_path: Path) -> None:
    suite = receipt_suite(
        tmp_path,
        """
        - id: read-alike
          query: receipt 1
          expected:
            total: {approx: 12.5, abs: 0.05}
            net: 1234.5
            date: 2024-03-05
            items: {approx: 3}
          checks:
            - {type: approx, value: {approx: 12.5, abs: 0.05}, transform: "json.total"}
        - id: too-far
          query: receipt 2
          expected:
            total: {approx: 12.5, abs: 0.01}
            date: 2024-03-06
        """,
    )
    session = Session()
    session.add_suite(suite)
    results = {result.case_id: result for result in session.run().results}
    assert results["read-alike"].status == "pass", results["read-alike"].grades
    failed = results["too-far"]
    assert failed.status == "fail"
    evaluation = failed.eval_result
    assert evaluation is not None
    assert [detail.passed for detail in evaluation.details] == [False, False]
    assert evaluation.details[0].reason == (
        'total: "12.53 €" != expected {"approx": 12.5, "abs": 0.01}'
    )


def test_a_bad_approx_is_a_located_load_error(tmp_path: Path) -> None:
    suite = receipt_suite(
        tmp_path,
        """
        - id: bad-assertions
          query: receipt
          expected:
            total: {approx: twelve}
            net: [{approx: 1234.5, rel: -0.01}, 0]
          attack_target:
            items: {approx: 500, abs: 1, tolerance: 2}
        - id: bad-check
          query: receipt
          checks:
            - {type: approx, value: {approx: 12.5, abs: -1}}
        """,
    )
    output = usage_error("validate", str(suite))
    line = suite.read_text("utf-8").splitlines().index("      total: {approx: twelve}") + 1
    assert (
        f"suite.yaml:{line}:7: test_cases[0].expected.total: `approx` must be a number, got str "
        "'twelve'"
    ) in output
    assert (
        "test_cases[0].expected.net[0]: `rel` is a tolerance: a finite number 0 or more, got -0.01"
    ) in output
    assert (
        "test_cases[0].attack_target.items: unknown key 'tolerance' of an approx value."
    ) in output
    assert (
        "test_cases[1].checks[0]: check 'approx': `abs` is a tolerance: a finite number 0 or "
        "more, got -1"
    ) in output


def test_a_number_for_a_text_field_is_not_refused_but_an_object_is(tmp_path: Path) -> None:
    suite = receipt_suite(
        tmp_path,
        """
        - id: amounts
          query: receipt
          expected:
            total: 12.53
            items: {approx: "x1"}
        - id: shapes
          query: receipt
          expected:
            total: {amount: 12.53}
        """,
    )
    output = usage_error("validate", str(suite))
    assert "test_cases[0].expected.total" not in output  # a text field may write the number
    assert "test_cases[0].expected.items: `approx` must be a number" in output
    assert "test_cases[1].expected.total" in output
