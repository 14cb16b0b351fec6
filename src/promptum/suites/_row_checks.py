"""The checks a data file's copied rows each give a value to: `RowCheck`s of their prototype.

Two kinds: a suite's check whose value is a template of the row's vars
(`value: "{{ capital }}"`), and a row's own check (a `columns:` cell, a JSONL row's
`checks:`) that is its prototype row's but for its value. Each row's values are checked
as the full build would check them; a row whose values the copy cannot vouch for is built
in full, which locates what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptum.cases import RowCheck, TestCase
from promptum.checks import CheckDefinition, CheckTable, ValueKind, expressions_of, get_check_type
from promptum.suites._build_render import valued_check, written_check
from promptum.suites._canary import VARIABLE
from promptum.suites._data_files import RawCase
from promptum.suites._reused import has_template, same_data
from promptum.suites._suite_context import SuiteContext
from promptum.templating import TemplateError, is_template, render

_SEARCHED = frozenset({"regex", "not_regex"})
"""String checks whose value must also compile as a pattern."""
_NO_CHECKS: list[Any] = []


_Own = tuple[tuple[str, type, Any], ...] | dict[str, Any]
"""A prototype row's own check: as written but its value (a row gives its own), or the
whole check as written (a row must write it the same, and shares the prototype's)."""


class RowChecks:
    """Which checks of a data file's rows each row gives a value to, and each row's values."""

    def __init__(self, context: SuiteContext) -> None:
        checks = context.defaults.checks
        self._table = context.checks
        self._defaults = len(checks)
        self._templates = [(i, c.value) for i, c in enumerate(checks) if has_template(c.value)]
        """The suite's checks filled in from each row's vars: where, and their templates."""
        self.possible = all(_row_checkable(checks[index]) for index, _ in self._templates)
        """Whether each of them can be (else no row is copied)."""
        self._own: list[_Own] = []
        """The prototype row's own checks (see `_Own`)."""
        self._written: Any = None
        """The prototype row's `checks` as written: a row writing the same has its values."""
        self._values: list[str] = []
        """The prototype row's values of its own row checks."""
        self.made: tuple[RowCheck, ...] = ()
        self.per_row = False
        """Whether each row's checks are looked at: it fills some in, or writes its own."""

    def prototype(self, raw: RawCase, case: TestCase) -> tuple[RowCheck, ...] | None:
        """The row checks of a prototype made of row `raw`'s `case`; None: it cannot be one."""
        written = raw.data.get("checks", _NO_CHECKS)
        if type(written) is not list or not all(type(check) is dict for check in written):
            return None
        checks = case.grading.checks
        if len(checks) != self._defaults + len(written):
            return None
        made = [_row_check(index, checks[index], self._table) for index, _ in self._templates]
        own: list[_Own] = []
        values: list[str] = []
        for index, check in enumerate(written, self._defaults):
            settings = _settings(check)
            if settings is not None and _row_checkable(checks[index]):
                made.append(_row_check(index, checks[index], self._table))
                own.append(settings)
                values.append(check["value"])
            elif _plain(check) and not has_template(check):
                own.append(check)  # a number, a list: each row must write it the same
            else:
                return None
        self._own, self.made = own, tuple(made)
        self.per_row = bool(made or own)
        # A row writing the very same checks has the prototype's values (none is filled in).
        self._written, self._values = (None, []) if has_template(written) else (written, values)
        return self.made

    def values(self, raw: RawCase, variables: Mapping[str, Any]) -> tuple[str, ...] | None:
        """Row `raw`'s value of each row check, each valid; None: build the row in full."""
        filled = []
        try:
            for _, template in self._templates:
                filled.append(render(template, variables))
        except TemplateError:
            return None  # the full build locates it
        written = raw.data.get("checks")
        if self._written is not None and same_data(written, self._written):
            own = self._values  # the prototype's, valid as they are
        elif self._own or "checks" in raw.data:
            found = self._own_values(written)
            if found is None:
                return None
            own = found
        else:
            own = []
        templated, mine = self.made[: len(filled)], self.made[len(filled) :]
        if any(not check.fits(value) for check, value in zip(templated, filled, strict=True)):
            return None
        if own is not self._values and any(
            not check.fits(value) for check, value in zip(mine, own, strict=True)
        ):
            return None
        return (*filled, *own)

    def _own_values(self, written: Any) -> list[str] | None:
        """The values of a row's own checks, if they are its prototype's but for them."""
        if type(written) is not list or len(written) != len(self._own):
            return None
        values = []
        for check, own in zip(written, self._own, strict=True):
            if type(own) is dict:
                if not same_data(check, own):
                    return None
                continue
            value = check.get("value") if type(check) is dict else None
            if type(value) is not str or is_template(value) or _settings(check) != own:
                return None
            values.append(value)
        return values


def _plain(value: Any) -> bool:
    """Whether `value` is plain data as a file gives it: text, numbers, lists, mappings."""
    if type(value) is dict:
        return all(type(key) is str and _plain(item) for key, item in value.items())
    if type(value) is list:
        return all(_plain(item) for item in value)
    return value is None or type(value) in (str, int, float, bool)


def _settings(check: Any) -> tuple[tuple[str, type, Any], ...] | None:
    """A row's own check as written but its value: each key, its value's type and value.

    None: not a mapping of plain values with a string `value` to copy.
    """
    if type(check) is not dict or type(check.get("value")) is not str:
        return None
    settings = tuple((key, type(item), item) for key, item in check.items() if key != "value")
    if any(kind in (dict, list) for _, kind, _ in settings):
        return None
    return settings


def _row_checkable(check: CheckDefinition) -> bool:
    """Whether a check can take each copied row's value (`RowCheck`).

    Its value is one string and nothing else of it reads a row: no transform or expression,
    no canary (each row's own), no tool (checked against the case's tools).
    """
    value = check.value
    if type(value) is not str or VARIABLE in value or check.transform is not None:
        return False
    return get_check_type(check.type).string_check and not expressions_of(check.compiled)


def _row_check(index: int, check: CheckDefinition, table: CheckTable | None) -> RowCheck:
    """Check `index` of the prototype, made with each row's value with `table`'s checks."""
    # A string check takes any non-empty string (`promptum.checks` validates it so); a
    # pattern, or another kind of value, is made to find out.
    plainly = get_check_type(check.type).value is ValueKind.STRING and check.type not in _SEARCHED

    def valid(value: str) -> bool:
        return plainly and value != ""

    written = written_check(check)  # once, not once a row

    def made(value: str) -> CheckDefinition | None:
        try:
            return valued_check(written, value, table)
        except ValueError:
            return None

    return RowCheck(index, check.value, valid, made)
