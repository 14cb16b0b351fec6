"""Indented JSON written by pydantic-core's encoder, byte for byte what `json.dumps` writes.

`json.dumps(..., indent=2)` runs the standard library's pure-Python encoder (its C encoder
does not indent): most of the time of a JSON report. pydantic-core writes the same text
many times faster, except for floats below 1e-4, which it spells ``4.5e-7`` or ``0.00001``
where Python's ``repr`` spells ``4.5e-07`` and ``1e-05``. Those few numbers are rewritten.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_core import PydanticSerializationError, to_json

_NUMBER = re.compile(r"-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?")
_RESPELT = re.compile(r"-?[0-9][0-9.]*e-[0-9]+|-?0\.0000[0-9]*")
"""A number spelt otherwise than `repr` spells it."""


def suspect(text: str) -> bool:
    """Whether `text` may spell a small float otherwise than Python: ``0.0000``, ``5e-``.

    Found with `str.find`: a pattern search costs more than the encoding, and ids such as
    ``case-1`` put ``e-`` in most results.
    """
    if "0.0000" in text:
        return True
    at = text.find("e-")
    while at != -1:
        if at and text[at - 1].isdigit():
            return True
        at = text.find("e-", at + 2)
    return False


def _found(text: str, part: str) -> list[int]:
    """Where `part` is in `text`: `str.find` is many times faster than a pattern's search."""
    places = []
    at = text.find(part)
    while at != -1:
        places.append(at)
        at = text.find(part, at + len(part))
    return places


def _small_floats(text: str) -> list[int]:
    """Where a float below 1e-4 may be spelt (in a number or a string), in order.

    A digit before a negative exponent, or four zeros after a point.
    """
    exponents = [at - 1 for at in _found(text, "e-") if at and text[at - 1].isdigit()]
    return sorted(exponents + _found(text, "0.0000"))


def _is_value(text: str, end: int) -> bool:
    """Whether the number ending at `end` of indented JSON is a value, not part of a string.

    Indented, a value ends its line, or is followed by the comma that does; a string's line
    breaks are escaped, so a string that held the number would still be open there.
    """
    return end == len(text) or text.startswith(("\n", ",\n"), end)


def _respelt(text: str) -> str:
    """`text` with each number value spelt as `repr` spells it where pydantic-core did not."""
    pieces: list[str] = []
    done = 0
    for start in _small_floats(text):
        if start < done:
            continue  # in the number just respelt
        while start and text[start - 1] in "0123456789.":
            start -= 1
        if start and text[start - 1] == "-":
            start -= 1
        number = _NUMBER.match(text, start)
        if number is None or not _RESPELT.fullmatch(number.group()):
            continue
        if not _is_value(text, number.end()):
            continue
        pieces += (text[done:start], repr(float(number.group())))
        done = number.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def indented(data: Any) -> str:
    """`json.dumps(data, ensure_ascii=False, indent=2)`, for data JSON holds."""
    try:
        text = to_json(data, indent=2, inf_nan_mode="constants").decode("utf-8")
    except (PydanticSerializationError, UnicodeDecodeError, ValueError, TypeError):
        # What pydantic-core will not write (a lone surrogate; on an older pydantic-core,
        # the keyword): the standard library's.
        return json.dumps(data, ensure_ascii=False, indent=2)
    return _respelt(text) if suspect(text) else text
