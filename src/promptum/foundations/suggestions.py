"""The "did you mean" of an error message: the closest known name, said one way everywhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping


def suggestion(name: str) -> str:
    """`` Did you mean 'name'?``: a sentence to append to a message that ends with one."""
    return f" Did you mean {name!r}?"


def did_you_mean(word: str, known: Iterable[str] | Mapping[str, str]) -> str:
    """`suggestion` of the known name closest to `word`, or "" when none is close.

    A mapping is matched by its keys and suggests their values: the name as written when the
    keys are lower-cased to ignore case, or what the user writes when the keys are the bare
    names (`vars.name` for `name`).
    """
    close = difflib.get_close_matches(word, list(known), n=1)
    if not close:
        return ""
    return suggestion(known[close[0]] if isinstance(known, Mapping) else close[0])
