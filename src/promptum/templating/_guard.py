"""A template's syntax tree checked: what a suite may not do refused, work counted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from promptum.templating._errors import TemplateError
from promptum.templating._filters import CONCAT, LOOP, OUTPUT

if TYPE_CHECKING:
    import jinja2
    from jinja2.visitor import NodeTransformer


def _fail(node: Any, source: str, message: str) -> TemplateError:
    where = f" (line {node.lineno} of the template)" if "\n" in source else ""
    return TemplateError(
        f"templates cannot {message}{where}; a template sees only its variables, filters and tests"
    )


def transformed(
    environment: jinja2.Environment, tree: jinja2.nodes.Template, transformer: NodeTransformer
) -> jinja2.nodes.Template:
    """`tree` rewritten by `transformer`, ready to compile in `environment`."""
    from jinja2 import nodes

    rewritten = transformer.visit(tree)
    assert isinstance(rewritten, nodes.Template)
    rewritten.set_environment(environment)
    return rewritten


def guarded(
    environment: jinja2.Environment, parsed: jinja2.nodes.Template, source: str
) -> jinja2.nodes.Template:
    """`parsed` (the tree of `source`) with what a template may not do refused and counted."""
    from jinja2 import nodes
    from jinja2.filters import FILTERS as JINJA_FILTERS
    from jinja2.visitor import NodeTransformer

    def removed(name: Any) -> bool:
        return name not in environment.filters and name in JINJA_FILTERS

    def check_attribute(node: nodes.Node, value: Any) -> None:
        # `map(attribute='__class__')` and friends look attributes up by a dotted path.
        if isinstance(value, nodes.Const) and isinstance(value.value, str):
            for part in value.value.split("."):
                if part.startswith("_"):
                    raise _fail(node, source, f"access `{part}`")

    def refuse(node: nodes.Node) -> None:
        """Fail on what is refused whether or not the template runs that far."""
        if isinstance(node, nodes.Extends | nodes.Include | nodes.Import | nodes.FromImport):
            raise _fail(node, source, "include, import or extend other templates")
        if isinstance(node, nodes.Getattr) and node.attr.startswith("_"):
            raise _fail(node, source, f"access `{node.attr}`")
        if isinstance(node, nodes.Getitem):
            check_attribute(node, node.arg)
        if isinstance(node, nodes.Filter | nodes.Test):
            if isinstance(node, nodes.Filter) and removed(node.name):
                raise _fail(node, source, f"use the `{node.name}` filter")
            for keyword in node.kwargs:
                if keyword.key == "attribute":
                    check_attribute(node, keyword.value)
            first = node.args[0] if node.args else None
            if node.name in ("groupby", "selectattr", "rejectattr"):
                check_attribute(node, first)
            if node.name == "map" and isinstance(first, nodes.Const) and removed(first.value):
                raise _fail(node, source, f"use the `{first.value}` filter")

    def counted(node: nodes.Node, name: str) -> nodes.Filter:
        return nodes.Filter(node, name, [], [], None, None, lineno=node.lineno)

    class Guard(NodeTransformer):
        def generic_visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> nodes.Node:
            refuse(node)
            node = super().generic_visit(node, *args, **kwargs)
            if isinstance(node, nodes.For):
                node.iter = counted(node.iter, LOOP)
            elif isinstance(node, nodes.Concat):
                return counted(nodes.List(node.nodes, lineno=node.lineno), CONCAT)
            elif isinstance(node, nodes.Output):
                node.nodes = [
                    part if isinstance(part, nodes.TemplateData) else counted(part, OUTPUT)
                    for part in node.nodes
                ]
            return node

    return transformed(environment, parsed, Guard())
