"""What a template reads, found without rendering it (to check it before its values exist)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from promptum.templating._plain import is_template

if TYPE_CHECKING:
    import jinja2


@functools.lru_cache(maxsize=256)
def names_read(text: str) -> frozenset[str]:
    """The variables a template reads; none when it does not parse (rendering says why)."""
    tree = _parsed(text)
    if tree is None:
        return frozenset()
    import jinja2.meta

    try:
        return frozenset(jinja2.meta.find_undeclared_variables(tree))
    except jinja2.TemplateSyntaxError:  # an unknown filter or test: rendering says which
        return frozenset()


@functools.lru_cache(maxsize=256)
def subscripts_read(text: str, name: str) -> tuple[tuple[int, str | None], ...]:
    """Each ``name[k]`` with a number `k` a template reads, and the attribute read off it."""
    from jinja2 import nodes

    tree = _parsed(text)
    if tree is None:
        return ()
    attributes = {
        id(node.node): node.attr
        for node in tree.find_all(nodes.Getattr)
        if isinstance(node.node, nodes.Getitem)
    }
    found = []
    for node in tree.find_all(nodes.Getitem):
        if not (isinstance(node.node, nodes.Name) and node.node.name == name):
            continue
        index = _constant_index(node.arg)
        if index is not None:  # a computed index is checked when it renders
            found.append((index, attributes.get(id(node))))
    return tuple(found)


def _parsed(text: str) -> jinja2.nodes.Template | None:
    """The template's syntax tree, or None when it is plain text or does not parse."""
    if not is_template(text):
        return None
    import jinja2

    try:
        # Jinja's own environment, not the sandbox: finding the names read compiles the
        # tree, which must not fail on a filter the sandbox left out (its render says so).
        return jinja2.Environment(autoescape=False).parse(text)
    except jinja2.TemplateSyntaxError:
        return None


def _constant_index(node: jinja2.nodes.Expr) -> int | None:
    """The index a subscript writes as a number (``-1`` is a negation of 1), else None."""
    from jinja2 import nodes

    sign = 1
    if isinstance(node, nodes.Neg):
        sign, node = -1, node.node
    if isinstance(node, nodes.Const) and type(node.value) is int:
        return sign * node.value
    return None
