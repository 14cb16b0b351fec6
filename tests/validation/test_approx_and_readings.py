"""Issue 40 item 4: the `approx` tolerance (pytest.approx's rule) and the readings of amounts
and dates that field assertions compare by."""

from __future__ import annotations

import datetime
import math
import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptum.evaluations import evaluate
from promptum.validation import Approx, approx_of, number_readings, read_alike
from promptum.validation._readings import date_readings

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e9, max_value=1e9)
bound = st.one_of(st.none(), st.floats(min_value=0, max_value=10, allow_nan=False))


@given(expected=finite, actual=finite, abs_=bound, rel=bound)
def test_the_tolerance_is_pytest_approx_s(
    expected: float, actual: float, abs_: float | None, rel: float | None
) -> None:
    ours = Approx(expected, abs_, rel).holds(actual)
    assert ours == (actual == pytest.approx(expected, abs=abs_, rel=rel))


@pytest.mark.parametrize(
    ("approx", "actual", "holds"),
    [
        (Approx(12.5, abs=0.01), 12.509, True),
        (Approx(12.5, abs=0.01), 12.52, False),
        (Approx(100, rel=0.01), 100.9, True),
        (Approx(100, rel=0.01), 101.1, False),
        # abs alone: the default relative tolerance does not widen it
        (Approx(1e9, abs=0.5), 1e9 + 1, False),
        # both: either one is enough
        (Approx(1e9, abs=0.5, rel=1e-6), 1e9 + 900, True),
        (Approx(12.5), 12.5 + 1e-6, True),  # rel 1e-6 by default
        (Approx(12.5), 12.6, False),
        (Approx(math.inf, abs=1e300), 1e308, False),  # infinity equals only itself
        (Approx(math.inf), math.inf, True),
        (Approx(1.0, abs=1), math.nan, False),
        (Approx(12.5, abs=0.01), "12.50 €", True),
        (Approx(1234.5, abs=0.01), "1.234,50", True),
        (Approx(12.5, abs=0.01), "about 12.5", False),
        (Approx(1, abs=1), True, False),  # a bool is not a number
    ],
)
def test_approx_holds(approx: Approx, actual: object, holds: bool) -> None:
    assert approx.holds(actual) is holds
    assert (actual == approx) is holds  # so `evaluate` and Python code compare with ==


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"approx": "twelve"}, "`approx` must be a number, got str 'twelve'"),
        ({"approx": True}, "`approx` must be a number"),
        ({"approx": 1, "abs": -0.1}, "`abs` is a tolerance: a finite number 0 or more"),
        ({"approx": 1, "rel": math.inf}, "`rel` is a tolerance"),
        ({"approx": 1, "abss": 1}, "unknown key 'abss' of an approx value. Did you mean 'abs'?"),
        ({"abs": 1}, "needs `approx`, the expected number"),
    ],
)
def test_a_bad_approx_says_what_is_wrong(spec: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        approx_of(spec)


def test_a_filled_in_template_is_a_number() -> None:
    assert approx_of({"approx": "12.5", "abs": "0.1"}) == Approx(12.5, 0.1)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("12.50 €", {"12.5"}),
        ("€12.50", {"12.5"}),
        ("USD 1,000.00", {"1000"}),
        ("1,234.50", {"1234.5"}),
        ("1.234,50", {"1234.5"}),
        ("1 234,50", {"1234.5"}),
        ("1\u202f234,50 €", {"1234.5"}),
        ("1,234,567", {"1234567"}),
        ("-12.5", {"-12.5"}),
        ("−7,5 kr", {"-7.5"}),
        ("12,50", {"12.5"}),
        ("0,500", {"0.5"}),
        # a lone group of three: a thousands group in English, a decimal part in German
        ("1,234", {"1234", "1.234"}),
        ("about 12.50", set()),
        ("12.50 € and 3 €", set()),
        ("1,234,5", set()),
        ("12.5.3", set()),
        ("", set()),
    ],
)
def test_an_amount_is_read_whole_or_not_at_all(text: str, values: set[str]) -> None:
    assert number_readings(text) == {Decimal(value) for value in values}


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("2024-03-05", {(2024, 3, 5)}),
        ("5 March 2024", {(2024, 3, 5)}),
        ("March 5, 2024", {(2024, 3, 5)}),
        ("Tue, 5 Mar 2024", {(2024, 3, 5)}),
        ("5th of March 2024", {(2024, 3, 5)}),
        ("05/03/2024", {(2024, 3, 5), (2024, 5, 3)}),  # day first, or month first
        ("March 2024", set()),  # no day: dateutil would take today's
        ("5 March", set()),  # no year
        ("12.5", set()),
        ("2024-02-30", set()),
        ("on 5 March 2024", {(2024, 3, 5)}),  # dateutil skips its jump words
        ("paid 5 March 2024", set()),
    ],
)
def test_a_date_names_day_month_and_year(text: str, dates: set[tuple[int, int, int]]) -> None:
    assert date_readings(text) == {datetime.date(*parts) for parts in dates}


@pytest.mark.parametrize(
    ("actual", "expected", "alike"),
    [
        ("12.50 €", 12.5, True),
        (1234.5, "1,234.50", True),
        ("12.51 €", 12.5, False),
        ("5 March 2024", datetime.date(2024, 3, 5), True),
        ("5 March 2024", "2024-03-05", True),
        ("2024-03-05", "5 March 2024", True),
        ("6 March 2024", "2024-03-05", False),
        ("12.5", "12.50 €", False),  # two strings that are not ISO dates are compared as written
        ("1", True, False),
    ],
)
def test_numbers_and_dates_match_the_strings_that_write_them(
    actual: object, expected: object, alike: bool
) -> None:
    assert read_alike(actual, expected) is alike


def test_field_assertions_compare_by_tolerance_and_readings() -> None:
    output = {"total": "12.53 €", "net": 1234.5, "date": "5 March 2024", "ref": "INV-1"}
    result = evaluate(
        output,
        expected={
            "total": {"approx": 12.5, "abs": 0.05},
            "net": "1,234.50",
            "date": datetime.date(2024, 3, 5),
            "ref": ["INV-1", "INV-2"],
        },
        attack_target={"total": [{"approx": 500, "rel": 0.01}]},
    )
    assert [detail.passed for detail in result.details] == [True, True, True, True, True]
    tight = evaluate(output, expected={"total": {"approx": 12.5, "abs": 0.01}})
    assert not tight.passed
    assert tight.details[0].reason == ('total: "12.53 €" != expected {"approx": 12.5, "abs": 0.01}')
    # An attack target written as an amount catches the value the output wrote as text.
    attacked = evaluate({"amount": "500.00 EUR"}, attack_target={"amount": 500})
    assert not attacked.passed
