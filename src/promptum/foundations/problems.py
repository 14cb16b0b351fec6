"""A pydantic `ValidationError` said in a line: where its first problem is, and what."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # as in `redaction`: the foundations import no more than the standard library
    from pydantic import ValidationError


def first_problem(error: ValidationError) -> tuple[str, str]:
    """Where the first problem of `error` is (a dotted path, "" at the top), and what it is.

    What it is loses pydantic's ``Value error,`` label: a person reads it, not pydantic.
    """
    first = error.errors()[0]
    what = first["msg"].removeprefix("Value error, ")
    return ".".join(str(part) for part in first["loc"]), what
