"""Writing the converted suite, each part noted with where it came from.

A part of the suite may carry comment lines (the config's file and line it was converted
from) and a tag; `dump` gives the lines each tagged part was written on, so a part promptum
refuses can be found from the line of the problem. It is written by the suites' writer,
whose text reads back as the data it was given (tests/suites/test_yaml_writer.py, and
tests/importers/test_suite_writing.py with comments and tags, check it on any data).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from promptum.suites import suite_text

Spans = dict[object, tuple[int, int]]
"""The first and last line of each tagged part of the suite written."""


@dataclass(frozen=True, slots=True)
class Commented:
    """A value with comment lines written above it, and a tag naming where it came from."""

    value: Any
    comments: tuple[str, ...] = ()
    tag: object = None


def plain(value: Any) -> Any:
    """The value without its comments: what the YAML says."""
    if isinstance(value, Commented):
        return plain(value.value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def _noted(value: Any) -> tuple[Any, tuple[str, ...]]:
    """A value of the data and its comment lines, as the suites' writer takes them."""
    if isinstance(value, Commented):
        return value.value, value.comments
    return value, ()


def dump(data: dict[str, Any], header: tuple[str, ...] = ()) -> tuple[str, Spans]:
    """The YAML text of `data` and the lines (first, last) of each tagged value."""
    spans: Spans = {}

    def placed(value: Any, first: int, last: int) -> None:
        if isinstance(value, Commented) and value.tag is not None:
            spans[value.tag] = (first, last)

    return suite_text(data, _noted, header, placed), spans
