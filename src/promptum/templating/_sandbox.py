"""The Jinja environments templates and expressions run in: immutable, sandboxed, budgeted.

Jinja's immutable sandbox refuses `_`-prefixed attributes (`__class__`, `__globals__`...) and
mutating methods; on top of it a template sees no globals but `range` and `dict`, only the
filters that shape text and data, and can call only the methods `_methods` lists.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from promptum.templating._budget import counted, current, spend_on
from promptum.templating._errors import security_error
from promptum.templating._field_reads import READ, read_field
from promptum.templating._filters import sandbox_filters, sandbox_tests
from promptum.templating._methods import OWNERS, call_method
from promptum.templating._operators import bounded_range, check_binop

if TYPE_CHECKING:
    import jinja2
    from jinja2.runtime import Context


def _describe(value: Any) -> str:
    name = getattr(value, "__qualname__", None)
    return f"`{name}`" if isinstance(name, str) else f"a {type(value).__name__}"


def template_environment() -> jinja2.Environment:
    """The sandbox templates render in."""
    return _sandbox(expressions=False)


def expression_environment() -> jinja2.Environment:
    """The sandbox of expressions, where a mapping's `.name` and `[name]` are its fields only."""
    return _sandbox(expressions=True)


@functools.cache
def _sandbox(*, expressions: bool) -> jinja2.Environment:
    import jinja2
    from jinja2.runtime import LoopContext, Macro
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Environment(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def getitem(self, obj: Any, argument: Any) -> Any:
            # `map(attribute='items')` and the like look up by item; in an expression a
            # mapping's missing key is missing, never its method of the same name.
            if expressions and isinstance(obj, Mapping) and isinstance(argument, str):
                try:
                    return obj[argument]
                except LookupError:
                    return self.undefined(obj=obj, name=argument)
            return super().getitem(obj, argument)

        def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
            check_binop(operator, left, right)
            return spend_on(super().call_binop(context, operator, left, right))

        def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
            # Raised at once: an Undefined would let `is defined` probe for what exists.
            raise security_error(
                f"templates cannot access `{attribute}` of a {type(obj).__name__}; a template "
                "sees only its variables, filters and tests"
            )

        def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
            if super().wrap_str_format(value) is not None:
                raise security_error(
                    "templates cannot use `str.format`: its fields reach attributes; join "
                    "text with `~`"
                )
            return None

        def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            current().step()
            if isinstance(obj, jinja2.Undefined):  # fails saying which name is undefined
                return obj(*args, **kwargs)
            if isinstance(obj, LoopContext) and len(args) == 1:  # a recursive loop
                args = (counted(args[0]),)
            elif isinstance(obj, types.BuiltinMethodType | types.MethodType) and isinstance(
                obj.__self__, OWNERS
            ):
                return spend_on(call_method(obj, args, kwargs))
            elif isinstance(obj, types.MethodType) and isinstance(obj.__self__, LoopContext):
                if obj.__name__ not in ("cycle", "changed"):
                    raise security_error(f"templates cannot call `loop.{obj.__name__}`")
            elif not (isinstance(obj, Macro) or obj is bounded_range or obj is dict):
                raise security_error(f"templates cannot call {_describe(obj)}")
            return spend_on(super().call(context, obj, *args, **kwargs))

    environment = Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    # No lipsum, cycler, joiner or namespace: globals are objects whose attributes lead out.
    environment.globals.clear()
    environment.globals.update(range=bounded_range, dict=dict)
    environment.filters.clear()
    environment.filters.update(sandbox_filters())
    environment.tests.update(sandbox_tests(environment.tests))
    if expressions:
        environment.filters[READ] = jinja2.pass_environment(read_field)
    return environment
