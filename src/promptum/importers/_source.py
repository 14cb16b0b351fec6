"""Reading a promptfoo config's files: bounded text, and YAML with the line of every value."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from promptum.errors import ConfigError

MAX_BYTES = 16 * 1024 * 1024
"""The largest file read: a config, a prompt, a test file (fixed: a conversion reads no
environment)."""
MAX_VALUES = 1_000_000
"""The most values one YAML file may hold, aliases expanded: a few bytes of aliases of
aliases would otherwise expand into billions."""
MAX_DEPTH = 100

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
    """The UTF-8 text of a file of the config, refused (located) when it cannot be read."""
    try:
        if not path.is_file():
            raise ConfigError(f"{shown}: no such file")
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ConfigError(
                f"{shown}: the file is {size:,} bytes, more than the {MAX_BYTES:,} read; "
                "split it into smaller files"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read the file: {os.strerror(exc.errno or 0)}") from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: the file is not UTF-8 text ({exc.reason})") from exc


def parse_yaml(text: str, shown: str) -> Document:
    """A YAML (or JSON) document with the line of each value; a syntax error is located."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{shown}:{mark.line + 1}" if mark is not None else shown
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: not valid YAML: {problem}") from exc
    lines: dict[Path_, int] = {}
    if node is None:
        return Document(None, shown, lines)
    builder = _Builder(shown, lines)
    return Document(builder.build(node, (), 0), shown, lines)


def read_yaml(path: Path, shown: str) -> Document:
    """`parse_yaml` of a file."""
    return parse_yaml(read_text(path, shown), shown)


class _Builder:
    """Turns composed YAML nodes into plain values, noting lines, within the bounds."""

    def __init__(self, shown: str, lines: dict[Path_, int]) -> None:
        self.shown = shown
        self.lines = lines
        self.values = 0
        self.constructor = yaml.SafeLoader("")

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES or depth > MAX_DEPTH:
            what = "values" if self.values > MAX_VALUES else "levels of nesting"
            raise ConfigError(
                f"{self.shown}:{node.start_mark.line + 1}: more than "
                f"{MAX_VALUES if self.values > MAX_VALUES else MAX_DEPTH:,} {what} "
                "(aliases expanded); this is not a config promptum can read"
            )
        if isinstance(node, yaml.MappingNode):
            mapping: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *defaults`
                    merged = self.build(value_node, path, depth + 1)
                    for part in merged if isinstance(merged, list) else [merged]:
                        if isinstance(part, dict):
                            mapping.update({k: v for k, v in part.items() if k not in mapping})
                    continue
                key = self.scalar(key_node)
                if isinstance(key, list | dict):
                    raise ConfigError(
                        f"{self.shown}:{key_node.start_mark.line + 1}: a key is a list or a "
                        "mapping; keys are text"
                    )
                key = str(key)
                self.lines[(*path, key)] = key_node.start_mark.line + 1
                mapping[key] = self.build(value_node, (*path, key), depth + 1)
            return mapping
        if isinstance(node, yaml.SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                self.lines[(*path, index)] = item.start_mark.line + 1
                items.append(self.build(item, (*path, index), depth + 1))
            return items
        return self.scalar(node)

    def scalar(self, node: yaml.Node) -> Any:
        """The value of a scalar (or a tagged node), refused where it is written if unreadable.

        A tag YAML does not know (`!foo`), a date that does not exist (`2024-13-45`), an
        `!!int` that is not a number: the composer lets each through, constructing it fails.
        """
        try:
            return self.constructor.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError) as exc:
            problem = getattr(exc, "problem", None) or str(exc)
            value = f" `{node.value}`" if isinstance(node, yaml.ScalarNode) else " this value"
            raise ConfigError(
                f"{self.shown}:{node.start_mark.line + 1}: YAML cannot read{value}: "
                f"{problem} (quote it to keep it as text)"
            ) from exc


def rows_document(rows: list[dict[str, str]], row_lines: list[int], shown: str) -> Document:
    """Rows of a data file (CSV, JSONL) as a document: each row and cell at the row's line."""
    lines: dict[Path_, int] = {}
    for index, (row, line) in enumerate(zip(rows, row_lines, strict=True)):
        lines[(index,)] = line
        for column in row:
            lines[(index, column)] = line
    return Document(rows, shown, lines)
