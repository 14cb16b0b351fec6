"""The methods of values a template may call, each charged to the budget for what it builds."""

from __future__ import annotations

import datetime
from typing import Any

from promptum.templating._budget import current, gather
from promptum.templating._errors import security_error

_STR_METHODS = frozenset(
    {
        "capitalize", "casefold", "center", "count", "endswith", "find", "index", "isalnum",
        "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
        "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust",
        "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
        "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
        "startswith", "strip", "swapcase", "title", "upper", "zfill",
    }
)  # fmt: skip
_METHODS: tuple[tuple[type, frozenset[str]], ...] = (
    (str, _STR_METHODS),
    (dict, frozenset({"get", "items", "keys", "values"})),
    (list, frozenset({"count", "index"})),
    (tuple, frozenset({"count", "index"})),
    (datetime.date, frozenset({"isoformat", "isoweekday", "strftime", "weekday"})),
    (datetime.time, frozenset({"isoformat", "strftime"})),
)
"""The methods of values a template may call; `str.format` is not one (its fields reach
attributes), nor anything that builds a copy of unbounded size without a check below."""

OWNERS = (str, dict, list, tuple, datetime.date, datetime.time)
"""The types of values whose methods `call_method` decides on."""

_SIZED_STR_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})


def replace(s: str, old: str, new: str, count: int | None = None) -> str:
    """`str.replace`, refused before it builds more text than the budget allows."""
    # Jinja's `replace` differs from this only when autoescaping, which prompts never do.
    s, old, new = str(s), str(old), str(new)
    found = len(s) + 1 if old == "" else s.count(old)
    if count is not None and count >= 0:
        found = min(found, count)
    current().afford(len(s) + found * max(len(new) - len(old), 0))
    return s.replace(old, new, -1 if count is None else count)


def call_method(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call a method of a string, mapping, list or date if it is one of _METHODS."""
    owner, name = method.__self__, method.__name__
    if not any(isinstance(owner, kind) and name in names for kind, names in _METHODS):
        raise security_error(
            f"templates cannot call `{type(owner).__name__}.{name}`; docs/suites.md lists "
            "the methods they can"
        )
    budget = current()
    if isinstance(owner, str):
        if name == "replace":
            return replace(owner, *args, **kwargs)
        if name == "join" and args:
            args = (gather(args[0], owner), *args[1:])
        elif name in _SIZED_STR_METHODS and args and isinstance(args[0], int):
            budget.afford(args[0])
    elif name == "strftime" and args:
        budget.afford(len(str(args[0])) * 16)  # `%c` writes 24 characters for 2
    return method(*args, **kwargs)
