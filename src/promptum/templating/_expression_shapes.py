"""Expressions that differ only in their constants share one compiled template.

An imported suite holds hundreds of expressions such as `("Parcel 5" | lower) in (output |
lower)`, one per test. Each is still parsed, checked and guarded on its own; only Jinja's
code generation and Python's compiling, most of the cost, are done once per shape: its
constants become variables the template reads, given beside the response's variables on
each evaluation (so a constant part is computed there, within the evaluation's budget,
rather than folded once while compiling).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from promptum.templating._sandbox import expression_environment

if TYPE_CHECKING:
    import jinja2

CONSTANT = "_promptum_constant_"
"""The prefix of the variables constants become: no expression may name one (`_check_known`)."""
_KEPT = 256
"""Shapes whose template is kept (in the expressions' sandbox); the oldest goes past that."""

_TEMPLATES: dict[str, jinja2.Template] = {}


def shared_template(tree: jinja2.nodes.Template) -> tuple[jinja2.Template, dict[str, Any]]:
    """The compiled template of `tree`'s shape, and the constants its variables stand for.

    `tree`, an expression's tree checked and guarded already, has each constant replaced by
    a variable. Raises what Jinja raises when the shape does not compile.
    """
    from jinja2 import nodes
    from jinja2.visitor import NodeTransformer

    environment = expression_environment()
    constants: dict[str, Any] = {}

    class Lifted(NodeTransformer):
        def generic_visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> nodes.Node:
            if isinstance(node, nodes.Const):
                name = f"{CONSTANT}{len(constants)}"
                constants[name] = node.value
                return nodes.Name(name, "load", lineno=node.lineno)
            return super().generic_visit(node, *args, **kwargs)

    shape = Lifted().visit(tree)
    assert isinstance(shape, nodes.Template)
    key = repr(shape)  # every node and field but line numbers, which only tracebacks show
    template = _TEMPLATES.get(key)
    if template is None:
        shape.set_environment(environment)  # the variables' nodes are new
        template = environment.from_string(shape)
        if len(_TEMPLATES) >= _KEPT:
            _TEMPLATES.pop(next(iter(_TEMPLATES)), None)
        _TEMPLATES[key] = template
    return template, constants
