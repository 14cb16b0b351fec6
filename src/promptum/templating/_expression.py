"""Expressions (`output | length < 500`): one Jinja expression's value rather than text.

The `expr` checks and transforms are single expressions compiled in the same sandbox as
templates, each evaluation with a budget of its own; in them a mapping's `.name` is its
field `name`, never its method, and a missing one an error naming it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from promptum.foundations.suggestions import did_you_mean
from promptum.templating._budget import FreshBudget
from promptum.templating._errors import TemplateError, shortened
from promptum.templating._expression_reads import (
    Attribute,
    attributes,
    nodes_of,
    probed,
    vars_read,
)
from promptum.templating._expression_shapes import shared_template
from promptum.templating._field_reads import reading_fields
from promptum.templating._guard import guarded
from promptum.templating._sandbox import expression_environment

if TYPE_CHECKING:
    import jinja2


class Expression:
    """A compiled sandboxed expression: call `evaluate` with its variables for its value."""

    __slots__ = (
        "_constants", "_names", "_template", "attributes", "names_read", "source", "vars_read",
    )  # fmt: skip

    def __init__(
        self,
        source: str,
        names: frozenset[str],
        compiled: tuple[jinja2.Template, dict[str, Any]],
        names_read: frozenset[str],
        vars_read: frozenset[str],
        attributes: tuple[Attribute, ...],
    ) -> None:
        self.source = source
        self._names = names
        # The template of the expression's shape, and the values of the constants it reads.
        self._template, self._constants = compiled
        self.names_read = names_read
        """The variables the expression reads: the others need not be computed."""
        self.vars_read = vars_read
        """The names read as `vars.name` or `vars['name']`, to check against a case's vars
        (not those only probed, `vars.name is defined`, `vars.name | default(1)`)."""
        self.attributes = attributes
        """Each `owner.name` it reads: what another language writes differently shows there."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Sent to another process (Ray) as its source: a compiled template cannot be pickled.
        return _compile_expression, (self.source, self._names)

    def evaluate(self, variables: Mapping[str, Any]) -> Any:
        """The expression's value; raise TemplateError saying what failed (budget included)."""
        import jinja2
        from jinja2.exceptions import SecurityError

        try:
            with FreshBudget():
                context = self._template.new_context({**variables, **self._constants})
                for _ in self._template.root_render_func(context):
                    pass
                result = context.vars["result"]
                if isinstance(result, jinja2.Undefined):
                    str(result)  # a strict undefined raises, naming what is missing
                return result
        except TemplateError:
            raise  # a field or item the value lacks, named as the expression writes it
        except SecurityError as exc:
            raise TemplateError(str(exc)) from exc
        except jinja2.UndefinedError as exc:
            raise TemplateError(shortened(str(exc.message))) from exc
        except Exception as exc:  # a filter or operation failed on this response's values
            raise TemplateError(f"{type(exc).__name__}: {shortened(str(exc))}") from exc


def compile_expression(source: str, names: Iterable[str]) -> Expression:
    """Compile one Jinja expression that may read only `names` (and `range`, `dict`).

    Raise TemplateError saying what to fix: a syntax error, an unknown name, filter or test
    (with the closest known one), or what the sandbox refuses.
    """
    try:
        return _compile_expression(source, frozenset(names))
    except RecursionError as exc:  # Jinja's parser and compiler recurse once per nesting level
        raise TemplateError(
            "expression nested too deeply to compile; write it with less nesting"
        ) from exc


# Jinja's own filters that are refused with their reason (`attr`, `format`...) by the guard.
_JINJA_ONLY = frozenset({"attr", "format", "random", "pprint", "escape", "e", "safe"})


@functools.lru_cache(maxsize=1024)
def _compile_expression(source: str, names: frozenset[str]) -> Expression:
    import jinja2
    from jinja2 import nodes

    environment = expression_environment()
    expression = _parsed(environment, source)
    _check_known(environment, expression, names)
    # Read before compiling, which rewrites the tree's reads of fields.
    probes = probed(expression)
    read = frozenset(name.name for name in nodes_of(expression, nodes.Name))
    found = vars_read(expression, probes), attributes(expression)
    body = [nodes.Assign(nodes.Name("result", "store"), expression, lineno=1)]
    tree = guarded(environment, nodes.Template(body, lineno=1), source)
    tree = reading_fields(environment, tree, probes)
    try:
        compiled = shared_template(tree)
    except jinja2.TemplateSyntaxError as exc:  # what compiling finds (e.g. `x | 1`)
        raise TemplateError(f"expression syntax error: {exc.message}") from exc
    except Exception as exc:  # what else Jinja's compiler refuses
        raise TemplateError(f"{type(exc).__name__}: {shortened(str(exc))}") from exc
    return Expression(source, names, compiled, read, *found)


def _parsed(environment: jinja2.Environment, source: str) -> jinja2.nodes.Expr:
    """The syntax tree of `source`, one expression and nothing after it."""
    import jinja2
    from jinja2.parser import Parser

    try:
        parser = Parser(environment, source, state="variable")
        expression = parser.parse_expression()
        if not parser.stream.eos:
            raise jinja2.TemplateSyntaxError(
                f"unexpected {parser.stream.current.value!r} after the expression",
                parser.stream.current.lineno,
            )
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"expression syntax error: {exc.message}") from exc
    return expression


def _check_known(
    environment: jinja2.Environment, expression: jinja2.nodes.Expr, names: frozenset[str]
) -> None:
    """Refuse a name, filter or test the expression cannot use, with the closest known one."""
    from jinja2 import nodes

    known = names | set(environment.globals)
    for name in nodes_of(expression, nodes.Name):
        if name.name not in known:
            raise TemplateError(
                f"unknown variable {name.name!r}.{_did_you_mean(name.name, known)} An "
                f"expression sees {', '.join(sorted(names))}"
            )
    for node in nodes_of(expression, (nodes.Filter, nodes.Test)):
        table = environment.filters if isinstance(node, nodes.Filter) else environment.tests
        kind = "filter" if isinstance(node, nodes.Filter) else "test"
        # `_promptum_read` and the like are what compiling adds, not for expressions to use.
        allowed = node.name in table and not node.name.startswith("_")
        if not allowed and not (kind == "filter" and node.name in _JINJA_ONLY):
            raise TemplateError(
                f"unknown {kind} {node.name!r}.{_did_you_mean(node.name, table)} "
                "docs/expressions.md lists them"
            )


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    # Names starting with `_` are what compiling adds, never suggested.
    return did_you_mean(name, [k for k in known if not k.startswith("_")])
