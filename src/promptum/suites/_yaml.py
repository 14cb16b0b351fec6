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


def _check_size(root: yaml.Node, path: Path) -> None:
    """Refuse an alias bomb, or values nested too deeply, from the node graph alone.

    Composing the graph costs what the file's text does, as an alias is one more reference
    to its anchor's node; it is building the document, and walking it, that repeats the
    anchor each time. Nine aliases of nine aliases... reach a billion values from a few
    hundred bytes, so the size the document would have is counted first, once per node.
    """
    written_values = written_text = 0
    first_path: dict[int, Loc] = {}  # where each node is first met, to name it in an error
    pending: list[tuple[yaml.Node, Loc]] = [(root, ())]
    while pending:
        node, loc = pending.pop()
        if id(node) not in first_path:
            first_path[id(node)] = loc
            written_values += 1
            written_text += _text(node)
            pending.extend(reversed(_located_children(node, loc)))  # in the file's order

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
        loc, mark = first_path[id(node)], node.start_mark
        field = format_loc(loc[:8]) + ("..." if len(loc) > 8 else "")
        where = f"{path}:{mark.line + 1}:{mark.column + 1}: {field}"
        if depth > MAX_DEPTH:
            raise ConfigError(
                f"{where}: values are nested more than {MAX_DEPTH} levels deep here; flatten "
                "them (a suite needs a few levels)"
            )
        if values - written_values > MAX_ALIAS_VALUES:
            added = f"more than {MAX_ALIAS_VALUES:,} values"
        elif text - written_text > MAX_ALIAS_CHARACTERS:
            added = f"more than {MAX_ALIAS_CHARACTERS:,} characters"
        else:
            continue
        raise ConfigError(
            f"{where}: through its aliases (`*name`), this value would expand to {added} "
            "beyond those written in the file: refused as an alias bomb; write the values "
            "out or use fewer aliases"
        )


def _walk(
    node: yaml.Node,
    loc: Loc,
    locator: Locator,
    problems: list[str],
    inside: frozenset[int],
    walked: set[int],
) -> None:
    locator.positions.setdefault(loc, _position(node.start_mark))
    if id(node) in inside:  # an alias of an enclosing node: a recursive structure
        problems.append(problem(locator, loc, "a YAML alias refers to itself; remove the loop"))
        return
    if id(node) in walked:
        # Another alias of a node already walked: its own keys were located the first time,
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
            locator.positions[(*loc, key)] = _position(key_node.start_mark)
            _walk(value_node, (*loc, key), locator, problems, inside, walked)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*loc, index), locator, problems, inside, walked)


def read_yaml(path: Path) -> tuple[Any, Locator]:
    """Parse `path`; raise ConfigError with the line and column of a syntax error."""
    try:
        text = read_document(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}") from exc
    locator = Locator(path)
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            problems: list[str] = []
            if node is not None:
                _check_size(node, path)  # before the document is built, not after
                # Walked before it is built: building merges `<<: *base` into the mapping's
                # node, whose keys would then look written twice.
                _walk(node, (), locator, problems, frozenset(), set())
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
