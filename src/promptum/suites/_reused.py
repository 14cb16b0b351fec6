"""What building each case finds the same in its suite's defaults: found once per suite."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptum.cases import GenerationParams
from promptum.checks import CheckDefinition, expressions_of
from promptum.suites._format import ParamsSpec
from promptum.templating import is_template


def merged_params(*specs: ParamsSpec | None) -> GenerationParams:
    """The parameters `specs` set, each over the ones before it."""
    merged: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for spec in specs:
        if spec is None:
            continue
        merged.update(spec.model_dump(exclude={"extra"}, exclude_none=True))
        extra.update(spec.extra)
    return GenerationParams(**merged, extra=extra)


class Reused:
    """The defaults' parameters and what their checks need, looked at once, not per case.

    Entries are by the identity of the spec or check, which each entry holds (so its id is
    never another's): a suite's defaults are a handful of objects, alive while it loads.
    """

    __slots__ = ("_checks", "_params")

    def __init__(self) -> None:
        self._params: dict[int, tuple[ParamsSpec | None, GenerationParams]] = {}
        self._checks: dict[int, tuple[CheckDefinition, bool]] = {}

    def params(self, defaults: ParamsSpec | None, case: ParamsSpec | None) -> GenerationParams:
        """The case's parameters: one shared object for the cases that set none of their own."""
        if case is not None:
            return merged_params(defaults, case)
        found = self._params.get(id(defaults))
        if found is None or found[0] is not defaults:
            found = self._params[id(defaults)] = (defaults, merged_params(defaults))
        params = found[1]
        if any(type(value) in (list, dict) for value in params.extra.values()):
            return merged_params(defaults)  # a list or dict in it: made per case, as before
        return params  # frozen, and its `extra` is copied into each request

    def plain(self, check: CheckDefinition) -> bool:
        """Whether a default check has nothing to fill in and evaluates no expression."""
        found = self._checks.get(id(check))
        if found is None or found[0] is not check:
            # A check with a template is made again per case, with its vars filled in.
            plain = not has_template(check.value) and not expressions_of(check.compiled)
            found = self._checks[id(check)] = (check, plain)
        return found[1]


def has_template(value: Any) -> bool:
    """Whether a string within `value` (a mapping's values, a list's items) is a template."""
    if isinstance(value, str):
        return is_template(value)
    if isinstance(value, Mapping):
        return any(has_template(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(has_template(item) for item in value)
    return False


def same_data(one: Any, other: Any) -> bool:
    """Whether two values read from a file are the same: equal, and of the same types.

    `1 == 1.0 == True` in Python, but a check of 1 and one of 1.0 are not the same check.
    """
    if type(one) is not type(other):
        return False
    if type(one) is dict:
        return one.keys() == other.keys() and all(same_data(one[k], other[k]) for k in one)
    if type(one) is list:
        return len(one) == len(other) and all(map(same_data, one, other))
    return bool(one == other)
