"""Settings read from the environment."""

from __future__ import annotations

import os
from collections.abc import Callable


def positive_int(name: str, default: int, refuse: Callable[[str], Exception]) -> int:
    """Variable `name` as a positive integer, `default` if unset or blank.

    Any other value raises ``refuse(raw)``: the caller's error, in its own words.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise refuse(raw)
    return value
