"""Rows of a data file copied from one prototype, as a plan reads them: their texts only.

Loading a data file writes, for each row copied from its prototype case, the fingerprint
text of what that row sets itself (its id and messages, see `own_text`); the plan reads
those lines back, a run of rows at a time, instead of reading and rendering the rows again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Literal

from promptum.cases._case import TestCase
from promptum.cases._copied_row import CopiedRow
from promptum.cases._hashed import messages_text

Texts = Sequence[tuple[Literal["system", "user"], str]]


RUN_KEYS = ("id", "messages")
"""The hashed fields of a row that `own_text` writes, in the order of their keys."""


def own_text(case_id: str, texts: Texts) -> str:
    """A copied row's own part of the fingerprint: its id's JSON, a tab, its messages' JSON.

    JSON escapes every tab and newline in its strings, so the tab and a line's end are
    never part of either.
    """
    encode = encode_basestring_ascii
    # The usual rows, a prompt alone or after a system message: written directly (a row's cost).
    if len(texts) == 1:
        role, text = texts[0]
        return f'{encode(case_id)}\t[{{"content": {encode(text)}, "role": {encode(role)}}}]'
    if len(texts) == 2:
        (role, text), (second_role, second) = texts
        first = f'{{"content": {encode(text)}, "role": {encode(role)}}}'
        then = f'{{"content": {encode(second)}, "role": {encode(second_role)}}}'
        return f"{encode(case_id)}\t[{first}, {then}]"
    return f"{encode_basestring_ascii(case_id)}\t{messages_text(texts)}"


@dataclass(frozen=True, slots=True)
class CopiedRun:
    """Consecutive rows of a data file, each `base` (the prototype) but for its id, messages.

    Their vars are not in `text`: a plan whose fingerprint hashes vars reads the rows.
    """

    base: TestCase
    count: int
    text: str
    """`own_text` of each row, a line each (every line ends with a newline)."""
    rows: Callable[[], Iterator[TestCase | CopiedRow]]
    """The same rows read from the file, as a plan reads them without their texts."""
