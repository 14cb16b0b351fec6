"""What an expression reads, found in its syntax tree: names, `vars` fields, attributes, probes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from promptum.templating._written import arguments_written, operand_written

if TYPE_CHECKING:
    import jinja2


class Attribute(NamedTuple):
    """An `owner.name` an expression reads, as it is written."""

    owner: str
    """What the name is read from, as written: `output`, `json.items`, `(output | lower)`."""
    name: str
    arguments: tuple[str, ...] | None
    """The arguments, as written, when it is called (`owner.name(...)`); else None."""


def nodes_of(tree: jinja2.nodes.Node, kinds: Any) -> Iterator[Any]:
    """`tree` and the nodes within it of `kinds` (Jinja's `find_all` skips the tree itself)."""
    if isinstance(tree, kinds):
        yield tree
    yield from tree.find_all(kinds)


def probed(expression: jinja2.nodes.Expr) -> frozenset[int]:
    """The reads (`a.b`, `a['b']`, and what they read from) only probed for being there.

    `json.total is defined` and `vars.limit | default(10)` ask whether a field exists: a
    missing one is undefined there, where anywhere else it is an error naming it.
    """
    from jinja2 import nodes

    found: set[int] = set()
    for node in nodes_of(expression, (nodes.Test, nodes.Filter)):
        if isinstance(node, nodes.Test) and node.name not in ("defined", "undefined"):
            continue
        if isinstance(node, nodes.Filter) and node.name not in ("default", "d"):
            continue
        inner = node.node
        while isinstance(inner, nodes.Getattr | nodes.Getitem):
            found.add(id(inner))
            inner = inner.node
    return frozenset(found)


def vars_read(expression: jinja2.nodes.Expr, probes: frozenset[int]) -> frozenset[str]:
    """The names an expression reads from `vars` by a constant: `vars.topic`, `vars['topic']`."""
    from jinja2 import nodes

    read: set[str] = set()
    # `vars.get('x', 1)`, `vars.keys()`: a method called, not a variable read.
    called = {id(call.node) for call in nodes_of(expression, nodes.Call)}
    for node in nodes_of(expression, (nodes.Getattr, nodes.Getitem)):
        if not (isinstance(node.node, nodes.Name) and node.node.name == "vars"):
            continue
        if id(node) in called or id(node) in probes:
            continue
        if isinstance(node, nodes.Getattr):
            read.add(node.attr)
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            read.add(node.arg.value)
    return frozenset(read)


def attributes(expression: jinja2.nodes.Expr) -> tuple[Attribute, ...]:
    """Each `owner.name` the expression reads, as written, with its arguments if called."""
    from jinja2 import nodes

    calls = {id(call.node): call for call in nodes_of(expression, nodes.Call)}
    found = []
    for node in nodes_of(expression, nodes.Getattr):
        call = calls.get(id(node))
        arguments = None if call is None else arguments_written(call)
        found.append(Attribute(operand_written(node.node), node.attr, arguments))
    return tuple(found)
