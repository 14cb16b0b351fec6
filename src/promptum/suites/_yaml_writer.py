"""Writing suite YAML a person reads, which the suite loader (PyYAML, YAML 1.1) reads back as is.

`suite_text` writes a suite, the importers' thousands of cases too, line by line: 2-space
mappings, indented lists, comment lines above the entry they describe, a mapping or list that
fits on its line (holding no comment and no multi-line text) in flow (`{a: 1}`), multi-line
text as a literal block (`|`); long texts are not folded. `suite_yaml` is ruamel.yaml's round
trip in that layout, for editing a suite a person wrote and keeping its comments and styles
(the viewer's "save as case"), with `yaml11_text` quoting texts by the same rule. Both write
for YAML 1.1, where ``yes``, ``on`` or ``1:20`` are a bool or a number: every text 1.1 would
read otherwise is quoted, and floats are written in 1.1's form.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import yaml

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import RoundTripRepresenter

WIDTH = 100
"""The width ruamel.yaml folds long texts at."""
FLOW_LINE = 97
"""The longest line a mapping or list written on one line (in flow) makes, key or dash too."""

Noted = Callable[[Any], tuple[Any, tuple[str, ...]]]
"""A value of the data written, as its value and the comment lines written above it."""
Placed = Callable[[Any, int, int], None]
"""Told of each value of a block mapping or list, as given, with its first and last line."""

_YAML11_BREAKS = re.compile("[\x85\u2028\u2029]")
"""Line breaks to YAML 1.1 (the suite loader's) but not to 1.2: only escaped they stay text."""
# Classes of the few characters they match: one of all the others, as a negated class of
# ranges up to U+10FFFF, takes milliseconds to compile at each start of promptum.
_NOT_ONE_LINE = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
)
"""What a text written on one line, plain or in single quotes, cannot hold: a line break to
YAML 1.1 (`\\x85` and `\\u2028` are), what YAML refuses in a file, a byte-order mark."""
_ESCAPED = re.compile(r'[\x00-\x1f"\\\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]')
"""What a double-quoted text escapes: those, quotes and backslashes."""
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0"}
_INNER = r"\-A-Za-z0-9_./()'\"+=<>|!&*%@`~^$;"
_PLAIN_FLOW = re.compile(rf"[A-Za-z0-9_(](?:[{_INNER} ]*[{_INNER}])?")
_PLAIN_BLOCK = re.compile(rf"[A-Za-z0-9_(](?:[{_INNER}?,\[\]{{}} ]*[{_INNER}?,\[\]{{}}])?")
"""Texts plain in a flow collection, and in a block (unless they read as a number, a bool...):
most are, and asking PyYAML's emitter costs more than writing the rest of the suite."""
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""What YAML refuses to read anywhere in a file, a comment too."""
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER: Any = yaml.resolver.Resolver()
_ANALYST: Any = yaml.emitter.Emitter(io.StringIO())
"""PyYAML's emitter, only to ask which texts it would write plain."""
_DUMPER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def suite_text(
    data: dict[Any, Any],
    noted: Noted | None = None,
    header: tuple[str, ...] = (),
    placed: Placed | None = None,
) -> str:
    """The YAML text of `data` (a mapping), with `header` as comment lines on top.

    `noted` gives each value of the data and the comment lines written above it (by
    default none); `placed` is told the lines each value was written on, from its key's
    (or dash's) line, below its comments. The text reads back as `data` in YAML 1.1.
    """
    out: list[str] = []
    _comments(header, 0, out)
    if data:
        _Writer(noted or _bare, placed or _unplaced, out).mapping(data, 0)
    else:
        out.append("{}\n")
    return "".join(out)


def _bare(value: Any) -> tuple[Any, tuple[str, ...]]:
    return value, ()


def _unplaced(_value: Any, _first: int, _last: int) -> None:
    return None


class _Writer:
    """Appends the lines of values to `out`: each piece of text ends its line or continues it."""

    def __init__(self, noted: Noted, placed: Placed, out: list[str]) -> None:
        self.noted = noted
        self.placed = placed
        self.out = out
        self._counted = 0
        """How many pieces of `out` the line count has counted."""
        self._lines = 0
        """The lines they end."""

    def line(self) -> int:
        """The number of the line being written (from 1)."""
        self._lines += "".join(self.out[self._counted :]).count("\n")
        self._counted = len(self.out)
        return self._lines + 1

    def mapping(self, value: dict[Any, Any], column: int, compact: bool = False) -> None:
        """A block mapping whose keys start at `column`, on new lines.

        `compact`: its first key on the line of the dash before it, unless it has comments.
        """
        for key, given in value.items():
            item, comments = self.noted(given)
            if compact and not comments:
                start = " "
            else:
                if compact:
                    self.out.append("\n")
                _comments(comments, column, self.out)
                start = " " * column
            compact = False
            name = _scalar(str(key), flow=False)
            first = self.line()
            self.out.append(f"{start}{name}:")
            self.value(item, column, len(name) + 2)
            self.placed(given, first, self.line() - 1)

    def sequence(self, value: list[Any], column: int) -> None:
        """A block list whose dashes are at `column`."""
        for given in value:
            item, comments = self.noted(given)
            _comments(comments, column, self.out)
            first = self.line()
            self.out.append(f"{' ' * column}-")
            self.value(item, column, 2)
            self.placed(given, first, self.line() - 1)

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
        return not isinstance(value, str) or _NOT_ONE_LINE.search(value) is None


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
    if not isinstance(value, str):
        return _yaml11_scalar(value)
    if len(value) <= _SHORT:
        return _short_text(value, flow)
    return _text(value, flow)


_SHORT = 40
"""Texts this short (keys, check types, names) repeat through a suite: each is kept written."""


@functools.lru_cache(maxsize=4096)
def _short_text(value: str, flow: bool) -> str:
    return _text(value, flow)


def _text(value: str, flow: bool) -> str:
    """A text on one line, read back as this text."""
    if _NOT_ONE_LINE.search(value):
        return '"' + _ESCAPED.sub(_escape, value) + '"'
    if _reads_plain(value, flow):
        return value
    return "'" + value.replace("'", "''") + "'"


def _reads_plain(value: str, flow: bool) -> bool:
    """Whether `value` written plain (in a `flow` collection) reads back as this text.

    Plain as PyYAML, which reads the suite, would write it: it reads in flow fewer plain
    texts than ruamel.yaml writes there (`{q: what?}`).
    """
    if not value or _RESOLVER.resolve(yaml.ScalarNode, value, (True, False)) != _STR_TAG:
        return False
    if (_PLAIN_FLOW if flow else _PLAIN_BLOCK).fullmatch(value):
        return True
    analysis = _ANALYST.analyze_scalar(value)
    return bool(analysis.allow_flow_plain if flow else analysis.allow_block_plain)


def _yaml11_scalar(value: Any) -> str:
    """A scalar other than text as YAML 1.1 writes it: `1e+17` is text there, `1.0e+17` not."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # Floats (and dates) as PyYAML writes them.
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


def suite_yaml() -> YAML:
    """ruamel.yaml's round trip as suites are written: 2-space mappings, indented lists."""
    from ruamel.yaml import YAML  # imported here: only editing a person's suite needs it

    writer = YAML(typ="rt")
    writer.Representer = _representer()
    writer.width = WIDTH
    writer.preserve_quotes = True  # a copied query keeps the quotes it was written with
    writer.indent(mapping=2, sequence=4, offset=2)
    return writer


@functools.cache
def _representer() -> type[RoundTripRepresenter]:
    """ruamel.yaml's round-trip representer, writing floats as `suite_text` writes them."""
    from ruamel.yaml.nodes import ScalarNode
    from ruamel.yaml.representer import RoundTripRepresenter

    class Representer(RoundTripRepresenter):
        def represent_float(self, data: Any) -> ScalarNode:
            """`1.0e+17`, where YAML 1.2 writes `1e+17` (text to YAML 1.1)."""
            return self.represent_scalar("tag:yaml.org,2002:float", _yaml11_scalar(data))

    Representer.add_representer(float, Representer.represent_float)
    return Representer


def yaml11_text(value: str, flow: bool = False) -> str:
    """`value` for `suite_yaml`, quoted where plain (in a `flow` collection) it reads otherwise."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

    if _YAML11_BREAKS.search(value) or _NON_PRINTABLE.search(value):
        return cast(str, DoubleQuotedScalarString(value))  # the one style that escapes them
    if _reads_plain(value, flow):
        return value
    return cast(str, SingleQuotedScalarString(value))
