"""Reading a promptfoo config's files: bounded text, and YAML with the line of every value.

YAML is read by the suites' reader, with the limits a suite has.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.suites import SUITE_BYTES_VARIABLE, YAML_SUFFIXES, located_yaml, max_suite_bytes

READ_AS_YAML = (*YAML_SUFFIXES, ".json")
"""The suffixes of the config's files read by `read_yaml`: JSON is YAML too."""

Key = str | int
Path_ = tuple[Key, ...]


@dataclass(frozen=True, slots=True)
class Where:
    """A line of a file of the config, as the generated comments and the summary name it."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class Document:
    """A value read from a file, with the line where each key's value and each item starts."""

    value: Any
    file: str
    lines: Mapping[Path_, int]

    def root(self) -> Node:
        """The whole document as a node."""
        return Node(self, ())


@dataclass(frozen=True, slots=True)
class Node:
    """One value of a document, and where it is written."""

    document: Document
    path: Path_

    @property
    def value(self) -> Any:
        """The value at this node's path."""
        value = self.document.value
        for key in self.path:
            value = value[key]
        return value

    @property
    def where(self) -> Where:
        """Its line, or the closest enclosing one that is known."""
        path = self.path
        while path and path not in self.document.lines:
            path = path[:-1]
        return Where(self.document.file, self.document.lines.get(path, 1))

    def get(self, key: str) -> Node | None:
        """The node of `key` in this mapping, if present."""
        value = self.value
        if isinstance(value, dict) and key in value:
            return Node(self.document, (*self.path, key))
        return None

    def items(self) -> Iterator[tuple[str, Node]]:
        """The keys and nodes of this mapping, in file order."""
        value = self.value
        if isinstance(value, dict):
            for key in value:
                yield key, Node(self.document, (*self.path, key))

    def elements(self) -> Iterator[Node]:
        """The nodes of this list's items; a single value is a list of itself."""
        value = self.value
        if isinstance(value, list):
            for index in range(len(value)):
                yield Node(self.document, (*self.path, index))
        else:
            yield self


def read_text(path: Path, shown: str) -> str:
    """The UTF-8 text of a file of the config, refused (located) when it cannot be read.

    Its size limit is a suite's: `PROMPTUM_MAX_SUITE_BYTES` of the machine, if set.
    """
    limit = max_suite_bytes()
    try:
        if not path.is_file():
            raise ConfigError(f"{shown}: no such file")
        size = path.stat().st_size
        if size > limit:
            raise ConfigError(
                f"{shown}: the file is {size:,} bytes, more than the {limit:,} read; "
                f"split it into smaller files, or set {SUITE_BYTES_VARIABLE} on this machine"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read the file: {os.strerror(exc.errno or 0)}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: the file is not UTF-8 text ({exc.reason})") from exc


def parse_yaml(text: str, shown: str) -> Document:
    """A YAML (or JSON) document with the line of each value, read as a suite is read.

    The suites' reader, with its limits (depth, aliases) and located errors: a syntax error,
    a key written twice, an alias bomb.
    """
    value, positions = located_yaml(text, Path(shown))
    lines: Mapping[Path_, int]
    if all(isinstance(loc[-1], int | str) for loc in positions if loc):
        lines = _Lines(positions)  # each path as the conversion names it: none to rename
    else:
        lines = {
            tuple(part if isinstance(part, int) else str(part) for part in loc): position.line
            for loc, position in positions.items()
        }
    return Document(_text_keys(value), shown, lines)


class _Lines(Mapping[Path_, int]):
    """The line of each path the reader located, looked up when asked."""

    def __init__(self, positions: Mapping[Path_, Any]) -> None:
        self._positions = positions

    def __getitem__(self, path: Path_) -> int:
        line: int = self._positions[path].line
        return line

    def __iter__(self) -> Iterator[Path_]:
        return iter(self._positions)

    def __len__(self) -> int:
        return len(self._positions)


def read_yaml(path: Path, shown: str) -> Document:
    """`parse_yaml` of a file."""
    return parse_yaml(read_text(path, shown), shown)


def _text_keys(value: Any) -> Any:
    """`value` with every key of its mappings as text, as the conversion names them."""
    if isinstance(value, dict):
        return {str(key): _text_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_text_keys(item) for item in value]
    return value


def rows_document(rows: list[dict[str, str]], row_lines: list[int], shown: str) -> Document:
    """Rows of a data file (CSV, JSONL) as a document: each row and cell at the row's line."""
    lines: dict[Path_, int] = {}
    for index, (row, line) in enumerate(zip(rows, row_lines, strict=True)):
        lines[(index,)] = line
        for column in row:
            lines[(index, column)] = line
    return Document(rows, shown, lines)
