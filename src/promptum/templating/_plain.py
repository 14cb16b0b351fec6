"""Plain text and `{{ name }}` templates, filled in without loading Jinja, as Jinja would."""

from __future__ import annotations

import functools
import keyword
import re
from collections.abc import Mapping
from typing import Any

from promptum.templating import _budget


def is_template(text: str) -> bool:
    """Whether `text` uses Jinja syntax; plain text is used as is, without loading Jinja."""
    return "{{" in text or "{%" in text or "{#" in text


_PLAIN_NAME = re.compile(r"\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}")
_PLAIN_VALUES = (str, int, float)
"""What a plain `{{ name }}` writes as Jinja does, `str(value)`; other values go to Jinja."""


@functools.lru_cache(maxsize=1024)
def plain(text: str) -> tuple[str, ...] | None:
    r"""`text` split into literal text and names when it is only text and `{{ name }}`s.

    Such a template renders by substitution, as Jinja would (a row's prompt is one, a
    million times over); anything else (filters, tags, comments, whitespace control, a
    `\r` Jinja would turn into `\n`, a name Jinja reads as a constant) returns None.
    """
    parts = tuple(_PLAIN_NAME.split(text))
    for literal in parts[::2]:
        if "\r" in literal or is_template(literal):
            return None
    for name in parts[1::2]:
        if keyword.iskeyword(name) or name in ("true", "false", "none"):
            return None
    return parts


def substituted(parts: tuple[str, ...], variables: Mapping[str, Any]) -> str | None:
    """`parts` with each name's value written in; None unless each is plain and not too long."""
    pieces = list(parts)
    written = 0
    for index in range(1, len(parts), 2):
        value = variables.get(parts[index], plain)  # a missing name is Jinja's to report
        if type(value) not in _PLAIN_VALUES:
            return None
        pieces[index] = text = str(value)
        written += len(text)
    # The budget's own limit, read from its module: one figure, never a copy of it.
    if written > _budget.MAX_TEMPLATE_SIZE:
        return None  # Jinja's budget refuses it, and says so
    return "".join(pieces)
