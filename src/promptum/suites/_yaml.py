"""Read a YAML document together with the line and column of every key and list item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from promptum.errors import ConfigError
from promptum.suites._locate import Loc, Locator, Position, problem, raise_problems

# The C loader when PyYAML was built with libyaml: several times faster on large suites.
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


def _walk(
    node: yaml.Node, loc: Loc, locator: Locator, problems: list[str], inside: frozenset[int]
) -> None:
    locator.positions.setdefault(loc, _position(node.start_mark))
    if id(node) in inside:  # an alias of an enclosing node: a recursive structure
        problems.append(problem(locator, loc, "a YAML alias refers to itself; remove the loop"))
        return
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
            _walk(value_node, (*loc, key), locator, problems, inside)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*loc, index), locator, problems, inside)


def read_yaml(path: Path) -> tuple[Any, Locator]:
    """Parse `path`; raise ConfigError with the line and column of a syntax error."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}") from exc
    locator = Locator(path)
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
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
    if node is not None:
        problems: list[str] = []
        _walk(node, (), locator, problems, frozenset())
        raise_problems(problems)
    return data, locator
