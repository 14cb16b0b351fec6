"""The converted suite's YAML text, written line by line: fast enough for thousands of tests.

It writes the layout of the suites' writer (ruamel.yaml's round trip, several times slower
on a suite of 1,000 imported tests): 2-space mappings, indented lists, comment lines above
the entry they describe, a mapping or list that fits on its line (holding no comment and no
multi-line text) in flow (`{a: 1}`), multi-line text as a literal block (`|`). Texts are
quoted as the suite loader (PyYAML, YAML 1.1) must read them; long texts are not folded.
The writer's caller reads the text back and compares it with the data.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import yaml

Noted = Callable[[Any], tuple[Any, tuple[str, ...]]]
"""A value of the data written, as its value and the comment lines written above it."""

FLOW_LINE = 97
"""The longest line a mapping or list written on one line (in flow) makes, key or dash too."""

_QUOTABLE = re.compile(
    r"[\t\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*"
)
"""Texts written on one line, plain or in single quotes: no line break to YAML 1.1 (which
`\\x85` and `\\u2028` are), nothing YAML refuses in a file, no byte-order mark."""
_ESCAPED = re.compile(
    r"[^\x20\x21\x23-\x5b\x5d-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
    r"\U00010000-\U0010ffff]"
)
"""What a double-quoted text escapes: quotes, backslashes and every character not above."""
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}
_INNER = r"\-A-Za-z0-9_./()'\"+=<>|!&*%@`~^$;"
_PLAIN_FLOW = re.compile(rf"[A-Za-z0-9_(](?:[{_INNER} ]*[{_INNER}])?")
_PLAIN_BLOCK = re.compile(rf"[A-Za-z0-9_(](?:[{_INNER}?,\[\]{{}} ]*[{_INNER}?,\[\]{{}}])?")
"""Texts plain in a flow collection, and in a block (unless they read as a number, a bool...):
most are, and asking PyYAML's emitter costs more than writing the rest of the suite."""
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER: Any = yaml.resolver.Resolver()
_ANALYST: Any = yaml.emitter.Emitter(io.StringIO())
"""PyYAML's emitter, only to ask which texts it would write plain."""
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def yaml_text(data: dict[str, Any], noted: Noted, header: tuple[str, ...] = ()) -> str:
    """The YAML text of the mapping `data`, with `header` as comment lines on top."""
    out: list[str] = []
    _comments(header, 0, out)
    _Writer(noted, out).mapping(data, 0)
    return "".join(out)


class _Writer:
    """Appends the lines of values to `out`: each piece of text ends its line or continues it."""

    def __init__(self, noted: Noted, out: list[str]) -> None:
        self.noted = noted
        self.out = out

    def mapping(self, value: dict[Any, Any], column: int, compact: bool = False) -> None:
        """A block mapping whose keys start at `column`, on new lines.

        `compact`: its first key on the line of the dash before it, unless it has comments.
        """
        for key, item in value.items():
            item, comments = self.noted(item)
            if compact and not comments:
                start = " "
            else:
                if compact:
                    self.out.append("\n")
                _comments(comments, column, self.out)
                start = " " * column
            compact = False
            name = _scalar(str(key), flow=False)
            self.out.append(f"{start}{name}:")
            self.value(item, column, len(name) + 2)

    def sequence(self, value: list[Any], column: int) -> None:
        """A block list whose dashes are at `column`."""
        for item in value:
            item, comments = self.noted(item)
            _comments(comments, column, self.out)
            self.out.append(f"{' ' * column}-")
            self.value(item, column, 2)

    def value(self, value: Any, column: int, prefix: int) -> None:
        """The value after a key (or dash) at `column`, `prefix` long, to the end of its lines."""
        if isinstance(value, dict | list) and value:
            if self.one_line(value) and len(flow := _flow(value)) <= FLOW_LINE - column - prefix:
                self.out.append(f" {flow}\n")
            elif isinstance(value, dict):
                dash = prefix == 2  # `- ` before it, not a key (which is at least `'': `)
                if not dash:
                    self.out.append("\n")
                self.mapping(value, column + 2, compact=dash)
            else:
                self.out.append("\n")
                self.sequence(value, column + 2)
        elif isinstance(value, str) and (block := _literal(value, column + 2)) is not None:
            self.out.append(block)
        elif value is None:
            self.out.append("\n")
        else:
            self.out.append(f" {_scalar(value, flow=False)}\n")

    def one_line(self, value: Any) -> bool:
        """Whether `value` holds no comment and no multi-line text: it may be written in flow."""
        inner, comments = self.noted(value)
        if comments or inner is not value:
            return False
        if isinstance(value, dict):
            return all(self.one_line(item) for item in value.values())
        if isinstance(value, list):
            return all(self.one_line(item) for item in value)
        return not isinstance(value, str) or _QUOTABLE.fullmatch(value) is not None


def _flow(value: Any) -> str:
    """`value` written in flow, on one line."""
    if isinstance(value, dict):
        items = (f"{_scalar(str(key), flow=True)}: {_flow(item)}" for key, item in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item) for item in value) + "]"
    return _scalar(value, flow=True)


def _scalar(value: Any, flow: bool) -> str:
    """A scalar on one line, read back by YAML 1.1 as `value` (in a `flow` collection too)."""
    if isinstance(value, str):
        if _QUOTABLE.fullmatch(value) is None:
            return '"' + _ESCAPED.sub(_escape, value) + '"'
        if value and _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) == _STR_TAG:
            if (_PLAIN_FLOW if flow else _PLAIN_BLOCK).fullmatch(value):
                return value
            analysis = _ANALYST.analyze_scalar(value)
            if analysis.allow_flow_plain if flow else analysis.allow_block_plain:
                return value
        return "'" + value.replace("'", "''") + "'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # Floats (and dates) as PyYAML writes them: `1e+17` is text to YAML 1.1, `1.0e+17` not.
    text: str = yaml.dump(value, Dumper=_DUMPER, default_flow_style=True, width=10**9)
    return text.split("\n", 1)[0]


def _escape(found: re.Match[str]) -> str:
    char = found[0]
    return _ESCAPES.get(char) or f"\\u{ord(char):04x}"


def _literal(text: str, indent: int) -> str | None:
    """Multi-line text as a literal block (`|`) indented at `indent`, if it reads back the same."""
    if "\n" not in text or "\r" in text or text[:1] in (" ", "\t"):
        return None
    if any(not (char.isprintable() or char in "\n\t") for char in text):
        return None
    # A first line that is empty needs the indent said; the last break says how text ends.
    hints = "2" if text.startswith("\n") else ""
    if not text.endswith("\n"):
        hints += "-"
    elif len(text) == 1 or text[-2] == "\n":
        hints += "+"
    pad = " " * indent
    lines = (text[:-1] if text.endswith("\n") else text).split("\n")
    return f" |{hints}\n" + "".join(f"{pad}{line}\n" if line else "\n" for line in lines)


def _comments(lines: tuple[str, ...], column: int, out: list[str]) -> None:
    """Comment lines at `column`: a line each, what YAML refuses in a file escaped."""
    # A comment ends at a line break: text over several lines (a test's `description: |`) is
    # a comment line each, or its rest would be read as YAML.
    pad = " " * column
    for line in lines:
        for part in line.splitlines() or [""]:
            escaped = _NON_PRINTABLE.sub(lambda c: c[0].encode("unicode_escape").decode(), part)
            out.append(f"{pad}# {escaped}\n" if escaped else f"{pad}#\n")
