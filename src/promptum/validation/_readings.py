"""Amounts and dates written as text, read as values: what "12.50 €" and "5 March 2024" say.

A string may be read more than one way: "1,234" is 1234 in English and 1.234 in German,
"05/03/2024" is 5 March or 3 May. A reading is only ever compared with a value the test
data holds, so each string gives every plausible reading and a comparison holds when one
of them matches; an amount with both separators ("1.234,50") or an ISO date has one.

Numbers are read by a strict grammar of our own: the whole string must be one amount (a
sign, digits in groups of three, a decimal part, a currency symbol or ISO code before or
after), never a number found inside a sentence. Dates other than ISO ones are read by
python-dateutil's parser, which knows English month and day names and every ordering of
day, month and year, and only when the text names a day, a month and a year: its defaults
would otherwise fill a missing part from today.
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation
from typing import Any

_CURRENCY = r"(?:[$€£¥₹₽₩₺₪₫฿₴₦₱¢]|[A-Z]{3}|US\$|R\$|Fr\.?|kr\.?|zł|Kč)"
_GROUPED = r"\d{1,3}(?:[,.\u00a0\u202f' ’]\d{3})+(?:[.,]\d+)?"
_PLAIN = r"\d+(?:[.,]\d+)?|[.,]\d+"
_AMOUNT = re.compile(
    rf"(?P<sign1>[-+−])?\s*(?:{_CURRENCY}\s*)?(?P<sign2>[-+−])?\s*"
    rf"(?P<digits>{_GROUPED}|{_PLAIN})"
    rf"(?:\s*{_CURRENCY})?"
)
_SPACES = "\u00a0\u202f' ’"
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Two defaults far apart: a part the text leaves out comes out different under each.
_DEFAULTS = (datetime.datetime(1, 1, 1), datetime.datetime(2, 2, 2))


def number_readings(text: str) -> frozenset[Decimal]:
    """Every value the string may write as one amount ("12.50 €", "1,234.50"); empty if none."""
    match = _AMOUNT.fullmatch(text.strip())
    if match is None or (match["sign1"] and match["sign2"]):
        return frozenset()
    negative = (match["sign1"] or match["sign2"] or "+") in "-−"
    return frozenset(-value if negative else value for value in _digit_readings(match["digits"]))


def _digit_readings(digits: str) -> list[Decimal]:
    """The values of the digits with their separators: one, or two when either could be decimal."""
    for space in _SPACES:
        digits = digits.replace(space, "")
    commas, dots = digits.count(","), digits.count(".")
    if commas and dots:
        decimal = "," if digits.rfind(",") > digits.rfind(".") else "."
        group = "." if decimal == "," else ","
        if digits.count(decimal) > 1:
            return []
        return _decimals(digits.replace(group, "").replace(decimal, "."))
    separator = "," if commas else "." if dots else ""
    if not separator:
        return _decimals(digits)
    if digits.count(separator) > 1:  # only groups, each of three digits: "1,234,567"
        groups = digits.split(separator)
        if any(len(group) != 3 for group in groups[1:]):
            return []
        return _decimals("".join(groups))
    whole, _, part = digits.partition(separator)
    as_decimal = _decimals(f"{whole}.{part}")
    if len(part) == 3 and whole and not whole.startswith("0"):
        return as_decimal + _decimals(whole + part)  # "1,234": a group, or a decimal part
    return as_decimal


def _decimals(text: str) -> list[Decimal]:
    try:
        return [Decimal(text)]
    except InvalidOperation:
        return []


def date_readings(text: str) -> frozenset[datetime.date]:
    """Every date the string may write, day, month and year all named; empty if none."""
    text = text.strip()
    if _ISO_DATE.fullmatch(text):
        try:
            return frozenset({datetime.date.fromisoformat(text)})
        except ValueError:
            return frozenset()
    if not any(char.isdigit() for char in text):
        return frozenset()  # a year is written in digits: no date without one
    # Imported when a date other than an ISO one is first read: ~35 ms that suites without
    # such a comparison never pay.
    from dateutil import parser  # type: ignore[import-untyped]

    found = set()
    for day_first in (False, True):
        try:
            first, second = (
                parser.parse(text, dayfirst=day_first, default=default) for default in _DEFAULTS
            )
        except (ValueError, OverflowError):
            continue
        if first.date() == second.date():
            found.add(first.date())
    return frozenset(found)


def as_decimal(value: int | float | Decimal) -> Decimal:
    """The number as a Decimal of its shortest written form (12.5, not 12.4999...)."""
    return value if isinstance(value, Decimal) else Decimal(repr(value))


def _number_of(value: Any) -> Decimal | None:
    """A finite number as a Decimal; None for anything else (a bool is not a number)."""
    if not isinstance(value, int | float | Decimal) or isinstance(value, bool):
        return None
    number = as_decimal(value)
    return number if number.is_finite() else None


def _date_of(value: Any) -> datetime.date | None:
    """A date, or the date an ISO date string holds; None for anything else."""
    if isinstance(value, datetime.datetime):
        return None
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def read_alike(actual: Any, expected: Any) -> bool:
    """Whether a number or a date and a string that writes it are the same value.

    A number and a string holding one amount ("12.50 €" and 12.5); a date, or an ISO date
    string, and a string naming that date ("5 March 2024"). Two strings that are not ISO
    dates are not read: the caller compares them as they are.
    """
    for one, other in ((actual, expected), (expected, actual)):
        if not isinstance(other, str):
            continue
        number = _number_of(one)
        if number is not None and number in number_readings(other):
            return True
        day = _date_of(one)
        if day is not None and day in date_readings(other):
            return True
    return False
