"""Writing the converted suite, each part noted with where it came from.

A part of the suite may carry comment lines (the config's file and line it was converted
from) and a tag; `dump` gives the lines each tagged part was written on, so a part promptum
refuses can be found from the line of the problem. The whole text is read back and compared
with the data, so a quirk of the writer can never change what the suite says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from promptum.errors import ConfigError
from promptum.importers._yaml_text import yaml_text

# libyaml reads back what was written, much faster than PyYAML in Python (a suite of 1,000
# imported tests is read back once per round of `write_valid`), and marks each node's line.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_BUG = "the importer wrote YAML it cannot read back (a bug: please report it with the config)"

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


def dump(
    data: dict[str, Any], header: tuple[str, ...] = (), shown: str = "the suite"
) -> tuple[str, Spans]:
    """The YAML text of `data` and the lines (first, last) of each tagged value.

    Raises ConfigError, located in the text, when it does not read back as `data`.
    """
    text = yaml_text(data, _noted, header)
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        same = (loader.construct_document(node) if node is not None else None) == plain(data)
    except yaml.YAMLError as exc:  # pragma: no cover - a bug of the writer
        mark = getattr(exc, "problem_mark", None)
        where = f"{shown}:{mark.line + 1}" if mark is not None else shown
        raise ConfigError(f"{where}: {_BUG}: {getattr(exc, 'problem', None) or exc}") from exc
    finally:
        loader.dispose()
    if not same:  # pragma: no cover - a bug of the writer
        raise ConfigError(f"{shown}: {_BUG}: it does not read back as converted")
    spans: Spans = {}
    if node is not None:
        _spans(data, node, text.count("\n"), spans)
    return text, spans


def _spans(value: Any, written: yaml.Node, end: int, spans: Spans) -> None:
    """Note the lines of each tagged part of `value`, which was `written` and ends at `end`.

    A part runs from its key's (or its item's) line to the line before the next part's.
    """
    value = value.value if isinstance(value, Commented) else value
    if isinstance(value, dict) and value and isinstance(written, yaml.MappingNode):
        # positionally: the keys are written in the data's order
        starts = [key.start_mark.line + 1 for key, _ in written.value]
        nodes = [node for _, node in written.value]
    elif isinstance(value, list) and value and isinstance(written, yaml.SequenceNode):
        starts = [node.start_mark.line + 1 for node in written.value]
        nodes = list(written.value)
    else:
        return
    items = zip(value.values() if isinstance(value, dict) else value, nodes, starts, strict=True)
    for (item, node, start), after in zip(items, [*starts[1:], end + 1], strict=True):
        _part(item, node, start, after - 1, spans)


def _part(item: Any, written: yaml.Node, start: int, end: int, spans: Spans) -> None:
    if isinstance(item, Commented) and item.tag is not None:
        spans[item.tag] = (start, end)
    _spans(item, written, end, spans)
