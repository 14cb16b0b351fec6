"""How the parts of an expression are written, to name them in messages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from promptum.templating._errors import shortened

if TYPE_CHECKING:
    import jinja2


def written(node: jinja2.nodes.Node) -> str:
    """`node` as an expression writes it: `json.order`, `tool_calls[0]`, `(output | lower)`."""
    from jinja2 import nodes

    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Const):
        return _literal(node.value)
    if isinstance(node, nodes.Getattr):
        return f"{operand_written(node.node)}.{node.attr}"
    if isinstance(node, nodes.Getitem):
        return f"{operand_written(node.node)}[{written(node.arg)}]"
    if isinstance(node, nodes.Slice):
        parts = (node.start, node.stop) if node.step is None else (node.start, node.stop, node.step)
        return ":".join("" if part is None else written(part) for part in parts)
    if isinstance(node, nodes.Call):
        return f"{operand_written(node.node)}({', '.join(arguments_written(node))})"
    if isinstance(node, nodes.Filter) and node.node is not None:
        arguments = arguments_written(node)
        called = f"({', '.join(arguments)})" if arguments else ""
        return f"{written(node.node)} | {node.name}{called}"
    if isinstance(node, nodes.List | nodes.Tuple):
        return f"[{', '.join(written(item) for item in node.items)}]"
    return "…"


def operand_written(node: jinja2.nodes.Node) -> str:
    """`node` written to be read from (`.name`, `[k]`, a call): in brackets unless it is simple."""
    from jinja2 import nodes

    text = written(node)
    simple = (nodes.Name, nodes.Const, nodes.Getattr, nodes.Getitem, nodes.Call, nodes.List)
    return text if isinstance(node, simple) else f"({text})"


def arguments_written(node: jinja2.nodes.Call | jinja2.nodes.Filter) -> tuple[str, ...]:
    """The arguments of a call or filter, as written: positional, then `name=value`."""
    positional = [written(argument) for argument in node.args]
    named = [f"{pair.key}={written(pair.value)}" for pair in node.kwargs]
    return (*positional, *named)


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return str(value).lower()
    return shortened(repr(value), 60)
