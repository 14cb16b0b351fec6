"""Writing suite YAML a person reads: ruamel.yaml's round trip, read back as the loader reads.

The importer writes whole suites with it and the viewer's "save as case" appends cases
with it. ruamel.yaml writes YAML 1.2, where ``yes``, ``on`` or ``1:20`` are text and stay
plain; the suite loader (PyYAML) reads YAML 1.1, where they are a bool or a number: every
text 1.1 would read otherwise is quoted, and floats are written in 1.1's form.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, cast

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

WIDTH = 100
"""The width long texts are folded at."""
FLOW_LINE = 97
"""The longest line a mapping or list written on one line (in flow) makes, key or dash too."""

Noted = Callable[[Any], tuple[Any, tuple[str, ...]]]
"""A value of the data written, as its value and the comment lines written above it."""

_YAML11_BREAKS = ("\x85", "\u2028", "\u2029")
"""Line breaks to YAML 1.1 (the suite loader's) but not to 1.2: only escaped they stay text."""
_BREAKS = ("\n", "\r", *_YAML11_BREAKS)
"""What breaks a line to one YAML reader or another: a text holding one is not on one line."""
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
"""What YAML refuses to read anywhere in a file, a comment too."""
_STR_TAG = "tag:yaml.org,2002:str"
_RESOLVER: Any = yaml.resolver.Resolver()
_ANALYST: Any = yaml.emitter.Emitter(io.StringIO())
"""PyYAML's emitter, only to ask which texts it would write plain."""


class _Representer(RoundTripRepresenter):
    """ruamel.yaml's round-trip representer, writing floats as YAML 1.1 reads them."""

    def represent_float(self, data: Any) -> ScalarNode:
        """`1e+17` is text to YAML 1.1: written `1.0e+17`, as PyYAML writes it."""
        node: ScalarNode = super().represent_float(data)
        if "." not in node.value and "e" in node.value:
            node.value = node.value.replace("e", ".0e", 1)
        return node


_Representer.add_representer(float, _Representer.represent_float)


def suite_yaml() -> YAML:
    """ruamel.yaml's round trip as suites are written: 2-space mappings, indented lists."""
    writer = YAML(typ="rt")
    writer.Representer = _Representer
    writer.width = WIDTH
    writer.preserve_quotes = True  # a copied query keeps the quotes it was written with
    writer.indent(mapping=2, sequence=4, offset=2)
    return writer


def yaml11_text(value: str, flow: bool = False) -> str:
    """`value` quoted when written plain (in a `flow` collection) it would not read back.

    Plain as PyYAML, which reads the suite, would write it: PyYAML reads in flow fewer
    plain texts than ruamel.yaml writes there (`{q: what?}`).
    """
    if any(mark in value for mark in _YAML11_BREAKS) or _NON_PRINTABLE.search(value):
        return cast(str, DoubleQuotedScalarString(value))  # the one style that escapes them
    tag = _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
    analysis = _ANALYST.analyze_scalar(value)
    if tag == _STR_TAG and (analysis.allow_flow_plain if flow else analysis.allow_block_plain):
        return value
    return cast(str, SingleQuotedScalarString(value))


def _bare(value: Any) -> tuple[Any, tuple[str, ...]]:
    return value, ()


def suite_nodes(value: Any, noted: Noted = _bare, column: int = 0, flow: bool = False) -> Any:
    """`value` as the nodes `suite_yaml` writes: each text safe, short values on one line.

    Multi-line text is a literal block (`|`); a mapping or list that fits on its line,
    holding no comment and no multi-line text, is written in flow (`{a: 1}`). `noted` gives
    the comment lines written above each value; `column` is where the value's keys (or a
    list's dashes) start; `flow`, whether it is inside a collection written in flow.
    """
    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            item, comments = noted(item)
            written = yaml11_text(str(key), flow)
            mapping[written] = _inner(item, noted, column, len(written) + 2, flow)
            if comments:
                mapping.yaml_set_comment_before_after_key(
                    written, before=_comment(comments), indent=column
                )
        return mapping
    if isinstance(value, list):
        items = CommentedSeq()
        for index, item in enumerate(value):
            item, comments = noted(item)
            items.append(_inner(item, noted, column, 2, flow))
            if comments:
                items.yaml_set_comment_before_after_key(
                    index, before=_comment(comments), indent=column
                )
        return items
    if isinstance(value, str):
        return (None if flow else _block(value)) or yaml11_text(value, flow)
    return value


def _inner(value: Any, noted: Noted, column: int, prefix: int, flow: bool) -> Any:
    """A value of a mapping or list at `column`, after a `prefix` (`key: `, `- `) long."""
    if flow or not (isinstance(value, dict | list) and value and _one_line(value, noted)):
        return suite_nodes(value, noted, column + 2, flow)
    if len(_flow_text(value)) > FLOW_LINE - column - prefix:
        return suite_nodes(value, noted, column + 2)
    nodes = suite_nodes(value, noted, column + 2, flow=True)
    nodes.fa.set_flow_style()
    return nodes


def _one_line(value: Any, noted: Noted) -> bool:
    """Whether `value` holds no comment and no multi-line text: it may be written in flow."""
    inner, comments = noted(value)
    if comments or inner is not value:
        return False
    if isinstance(value, dict):
        return all(_one_line(item, noted) for item in value.values())
    if isinstance(value, list):
        return all(_one_line(item, noted) for item in value)
    return not (isinstance(value, str) and any(mark in value for mark in _BREAKS))


def _flow_text(value: Any) -> str:
    """`value` written in flow on one line, to measure (PyYAML's, as near as ruamel's)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=10**9, allow_unicode=True)
    return text.rstrip("\n")


def _block(text: str) -> str | None:
    """A literal block scalar (`|`) for multi-line text, when one reads back the same."""
    if "\n" not in text or "\r" in text or text[:1] in (" ", "\t"):
        return None
    if any(not (char.isprintable() or char in "\n\t") for char in text):
        return None
    return cast(str, LiteralScalarString(text))


def _comment(lines: tuple[str, ...]) -> str:
    """Comment text: one line each, what YAML refuses in a file (control characters) escaped."""
    # A comment ends at a line break: text over several lines (a test's `description: |`) is
    # a comment line each, or its rest would be read as YAML.
    split = [part for line in lines for part in (line.splitlines() or [""])]
    return "\n".join(
        _NON_PRINTABLE.sub(lambda found: found[0].encode("unicode_escape").decode(), part)
        for part in split
    )


def suite_text(nodes: Any, header: tuple[str, ...] = ()) -> str:
    """The YAML text of `nodes` (see `suite_nodes`), with `header` as comment lines on top."""
    if header and isinstance(nodes, CommentedMap | CommentedSeq):
        nodes.yaml_set_start_comment(_comment(header))
    buffer = io.StringIO()
    suite_yaml().dump(nodes, buffer)
    return buffer.getvalue()
