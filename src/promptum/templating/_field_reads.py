"""Reads in an expression: a mapping's `.name` and `[name]` are its fields, never its methods.

`json.items` of `{"items": []}` is the list, not `dict.items`. Each read is compiled to the
`READ` filter, which knows how the expression wrote it, to say which field is missing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sized
from typing import TYPE_CHECKING, Any

from promptum.templating._errors import TemplateError, shortened
from promptum.templating._guard import transformed
from promptum.templating._written import written

if TYPE_CHECKING:
    import jinja2

READ = "_promptum_read"
_FIELDS_SHOWN = 12


def reading_fields(
    environment: jinja2.Environment, tree: jinja2.nodes.Template, probed: frozenset[int]
) -> jinja2.nodes.Template:
    """`tree` with each `a.b`, `a.b(...)` and `a[b]` read through the `READ` filter."""
    from jinja2 import nodes
    from jinja2.visitor import NodeTransformer

    called = {id(call.node) for call in tree.find_all(nodes.Call)}

    class Fields(NodeTransformer):
        def generic_visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> nodes.Node:
            if isinstance(node, nodes.Getattr):
                return self.read(node, "method" if id(node) in called else "field")
            if isinstance(node, nodes.Getitem) and not isinstance(node.arg, nodes.Slice):
                return self.read(node, "item")
            return super().generic_visit(node, *args, **kwargs)

        def read(self, node: nodes.Getattr | nodes.Getitem, how: str) -> nodes.Node:
            path = written(node.node)
            super().generic_visit(node)  # what it is read from, and a computed key, first
            key = node.arg if isinstance(node, nodes.Getitem) else nodes.Const(node.attr)
            arguments = [key, nodes.Const(how), nodes.Const(path), nodes.Const(id(node) in probed)]
            return nodes.Filter(node.node, READ, arguments, [], None, None, lineno=node.lineno)

    return transformed(environment, tree, Fields())


def read_field(
    environment: jinja2.Environment, owner: Any, key: Any, how: str, path: str, probed: bool
) -> Any:
    """`owner.key` (how: field), `owner.key(...)` (method) or `owner[key]` (item).

    A mapping's field is its key only; a missing one raises TemplateError naming it (`path`
    is how the expression writes the owner), or is undefined where it is only `probed`.
    """
    if how != "method" and isinstance(owner, Mapping):
        try:
            return owner[key]
        except (LookupError, TypeError):  # TypeError: a key that cannot be one (a list)
            problem = _no_field(owner, key, path)
    else:
        from jinja2 import Undefined

        if probed and isinstance(owner, Undefined):
            return owner  # `json.order.total is defined` without an order
        if how == "item":
            value = environment.getitem(owner, key)
        else:
            value = environment.getattr(owner, key)
        if not isinstance(value, Undefined):
            return value
        problem = _not_in(owner, key, path, how)
    if probed:
        return environment.undefined(hint=problem)
    raise TemplateError(problem)


def _no_field(mapping: Mapping[Any, Any], key: Any, path: str) -> str:
    """What a read of a mapping's missing field says: `json has no field 'x' (fields: a, b)`."""
    if len(mapping) <= 1000:
        names = sorted(str(name) for name in mapping)[:_FIELDS_SHOWN]
    else:  # a huge one (a model's answer) is shown in its own order, not sorted
        names = [str(name) for name in itertools.islice(mapping, _FIELDS_SHOWN)]
    shown = ", ".join(names)
    if len(mapping) > _FIELDS_SHOWN:
        shown += f", … ({len(mapping) - _FIELDS_SHOWN} more)"
    fields = f"fields: {shown}" if names else "it has no fields"
    return shortened(f"{path} has no field {_shown_key(key)} ({fields})", 300)


def _not_in(owner: Any, key: Any, path: str, how: str) -> str:
    """What a read of a missing attribute or item of a value that is not a mapping says."""
    if how == "item" and isinstance(owner, Sized) and isinstance(key, int):
        return f"{path} has no item {key} (it has {len(owner)})"
    kind = _KINDS.get(type(owner), f"a {type(owner).__name__}")
    what = "item" if how == "item" else "field"
    return shortened(f"{path} is {kind}, which has no {what} {_shown_key(key)}", 300)


_KINDS: dict[type, str] = {
    type(None): "none",
    str: "text",
    bool: "true/false",
    int: "a number",
    float: "a number",
    list: "a list",
    tuple: "a list",
}


def _shown_key(key: Any) -> str:
    return shortened(repr(key), 80)
