"""Read a YAML document together with the line and column of every key and list item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from promptum.errors import ConfigError
from promptum.suites._locate import (
    Loc,
    Locator,
    Position,
    format_loc,
    problem,
    raise_problems,
)
from promptum.suites._rows import read_document

# The C loader when PyYAML was built with libyaml: several times faster on large suites.
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_ALIAS_VALUES = 1_000_000
"""How many values aliases (`*name`) may add to a suite beyond those written in it."""

MAX_ALIAS_CHARACTERS = 100_000_000
"""How many characters of text aliases may add to a suite beyond those written in it."""

MAX_DEPTH = 100
"""How deeply values may nest (aliases included); reading deeper would overflow the stack."""


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _located_children(node: yaml.Node, loc: Loc) -> list[tuple[yaml.Node, Loc]]:
    if isinstance(node, yaml.MappingNode):
        return [
            (part, (*loc, str(key.value))) for key, value in node.value for part in (key, value)
        ]
    return [(item, (*loc, index)) for index, item in enumerate(_children(node))]


def _text(node: yaml.Node) -> int:
    return len(node.value) if isinstance(node, yaml.ScalarNode) else 0


def _where(root: yaml.Node, target: yaml.Node, path: Path) -> str:
    """``file:line:column: field`` of `target`, named by the path where it is first met."""
    # Searched for only when there is an error: most suites have millions of paths.
    seen: set[int] = set()
    pending: list[tuple[yaml.Node, Loc]] = [(root, ())]
    loc: Loc = ()
    while pending:
        node, loc = pending.pop()
        if node is target:
            break
        if id(node) not in seen:
            seen.add(id(node))
            pending.extend(reversed(_located_children(node, loc)))  # in the file's order
    mark = target.start_mark
    field = format_loc(loc[:8]) + ("..." if len(loc) > 8 else "")
    return f"{path}:{mark.line + 1}:{mark.column + 1}: {field}"


def _check_size(root: yaml.Node, path: Path) -> bool:
    """Refuse an alias bomb, or values nested too deeply, from the node graph alone.

    Composing the graph costs what the file's text does, as an alias is one more reference
    to its anchor's node; it is building the document, and walking it, that repeats the
    anchor each time. Nine aliases of nine aliases... reach a billion values from a few
    hundred bytes, so the size the document would have is counted first, once per node.
    Returns whether the document has aliases.
    """
    written_values = written_text = deepest = 0
    aliased = False
    met: set[int] = set()
    pending: list[tuple[yaml.Node, int]] = [(root, 1)]
    while pending:
        node, depth = pending.pop()
        if id(node) in met:
            aliased = True
            continue
        met.add(id(node))
        written_values += 1
        written_text += _text(node)
        deepest = max(deepest, depth)
        pending.extend((child, depth + 1) for child in _children(node))
    if not aliased and deepest <= MAX_DEPTH:
        return False  # a tree: the document is what is written (most suites, all large ones)

    # Bottom up, each node's size with its aliases repeated, from its children's sizes.
    sizes: dict[int, tuple[int, int, int]] = {}  # values, characters, depth
    open_nodes: set[int] = set()  # an alias to one of these is a loop, which _walk reports
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if not children_done:
            if id(node) not in sizes and id(node) not in open_nodes:
                open_nodes.add(id(node))
                stack.append((node, True))
                stack.extend((child, False) for child in _children(node))
            continue
        open_nodes.discard(id(node))
        values, text, depth = 1, _text(node), 1
        for child in _children(node):
            child_values, child_text, child_depth = sizes.get(id(child), (1, 0, 1))
            values, text = values + child_values, text + child_text
            depth = max(depth, child_depth + 1)
        sizes[id(node)] = values, text, depth
        if depth > MAX_DEPTH:
            raise ConfigError(
                f"{_where(root, node, path)}: values are nested more than {MAX_DEPTH} levels "
                "deep here; flatten them (a suite needs a few levels)"
            )
        if values - written_values > MAX_ALIAS_VALUES:
            added = f"more than {MAX_ALIAS_VALUES:,} values"
        elif text - written_text > MAX_ALIAS_CHARACTERS:
            added = f"more than {MAX_ALIAS_CHARACTERS:,} characters"
        else:
            continue
        raise ConfigError(
            f"{_where(root, node, path)}: through its aliases (`*name`), this value would "
            f"expand to {added} beyond those written in the file: refused as an alias bomb; "
            "write the values out or use fewer aliases"
        )
    return aliased


KEPT_DEPTH = 2
"""Positions kept while loading reach this deep: top-level keys and each case (its `source`).

The others are found again from the text only when a problem needs one: a suite of
300,000 cases has millions of them.
"""


def _walk(
    node: yaml.Node,
    loc: Loc,
    locator: Locator,
    problems: list[str],
    inside: frozenset[int] | None,
    walked: set[int],
    depth: int | None,
) -> None:
    """Locate paths (down to `depth`, or all), find duplicate keys and, with `inside`, loops."""
    if depth is None or len(loc) <= depth:
        locator.positions.setdefault(loc, _position(node.start_mark))
    if inside is not None:
        if id(node) in inside:  # an alias of an enclosing node: a recursive structure
            locator.positions.setdefault(loc, _position(node.start_mark))
            problems.append(problem(locator, loc, "a YAML alias refers to itself; remove the loop"))
            return
        if id(node) in walked:
            # Another alias of a node already walked: its keys were located the first time,
            # and walking every expansion would cost as much memory as the bomb it guards from.
            return
        walked.add(id(node))
        inside = inside | {id(node)}
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value
            if key in seen:
                locator.positions[(*loc, key)] = _position(key_node.start_mark)
                problems.append(
                    problem(locator, (*loc, key), f"key {key!r} appears twice; keep one")
                )
            seen.add(key)
            if depth is None or len(loc) < depth:
                locator.positions[(*loc, key)] = _position(key_node.start_mark)
            _walk(value_node, (*loc, key), locator, problems, inside, walked, depth)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*loc, index), locator, problems, inside, walked, depth)


class _Rest:
    """Locates every path of a document from its text, once, when a problem first needs it."""

    def __init__(self, text: str, locator: Locator) -> None:
        self.text: str | None = text
        self.locator = locator

    def __call__(self) -> None:
        if self.text is None:
            return
        text, self.text = self.text, None
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
        if node is not None:  # its problems were found by the first walk
            _walk(node, (), self.locator, [], frozenset(), set(), None)


def read_yaml(path: Path) -> tuple[Any, Locator]:
    """Parse `path`; raise ConfigError with the line and column of a syntax error."""
    try:
        text = read_document(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}") from exc
    locator = Locator(path)
    locator.rest = _Rest(text, locator)
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            problems: list[str] = []
            if node is not None:
                aliased = _check_size(node, path)  # before the document is built, not after
                # Walked before it is built: building merges `<<: *base` into the mapping's
                # node, whose keys would then look written twice.
                inside = frozenset[int]() if aliased else None
                _walk(node, (), locator, problems, inside, set(), KEPT_DEPTH)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        context = ""
        start = exc.context_mark
        if exc.problem and exc.context and start is not None and mark and start.line < mark.line:
            # e.g. an unclosed quote: the problem is found far below where the value began
            context = f" ({exc.context} that starts at line {start.line + 1}, column "
            context += f"{start.column + 1})"
        raise ConfigError(
            f"{where}: invalid YAML: {exc.problem or exc.context}{context}; check the "
            "indentation and quoting around this point"
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from exc
    raise_problems(problems)
    return data, locator
