"""`{{ name }}` templating of prompts with Jinja: sandboxed, bounded, strict about undefined names.

A suite file is data: whoever edits one must not run code or read secrets on the machine
that loads it. Templates therefore render in Jinja's immutable sandbox, which refuses
`_`-prefixed attributes (`__class__`, `__globals__`...) and mutating methods; on top of
it they see no globals but `range` and `dict`, only the filters that shape text and data,
can call only the string, mapping and list methods listed below, and have a budget of
work (loop iterations and calls) and of text they build, so no template can run for hours
or allocate gigabytes (`{{ 'x' * 10**9 }}`). The `expr` checks and transforms are single
expressions compiled in the same sandbox, each evaluation with a budget of its own; in them
a mapping's `.name` is its field `name`, never its method, and a missing one an error
naming it.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import json
import keyword
import re
import time
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import jinja2
    from jinja2.runtime import Context

MAX_TEMPLATE_SIZE = 10_000_000
"""Characters (and list items) one rendering may build, and may write: ~2.5M tokens, more
than any model's context."""

MAX_TEMPLATE_STEPS = 1_000_000
"""Loop iterations, calls, filters and tests one rendering may run: a second or so of work."""

MAX_TEMPLATE_SECONDS = 10.0
"""A backstop: a step past this refuses, however few steps (each may scan a long value)."""

MAX_RANGE = 100_000
"""The longest `range()`, and the most pieces `batch`/`slice` may make."""

MAX_INT_BITS = 3_322
"""About 1,000 digits: integer arithmetic past this is a way to burn CPU, not a prompt."""

MAX_JSON_INDENT = 16
"""The widest indent of `tojson`, which repeats it on every line."""

FILTERS = frozenset(
    {
        "abs", "batch", "capitalize", "center", "count", "d", "default", "dictsort",
        "filesizeformat", "first", "float", "groupby", "indent", "int", "items", "join",
        "last", "length", "list", "lower", "map", "max", "min", "reject", "rejectattr",
        "replace", "reverse", "round", "select", "selectattr", "slice", "sort", "string",
        "striptags", "sum", "title", "tojson", "trim", "truncate", "unique", "upper",
        "urlencode", "wordcount", "wordwrap",
    }
)  # fmt: skip
"""Jinja's filters a template may use. Left out: `attr` and `format` (attribute and format
string tricks), `random` (prompts must be reproducible), `pprint`, and the HTML ones
(`escape`, `safe`, `forceescape`, `urlize`, `xmlattr`), which mean nothing in a prompt."""

_STR_METHODS = frozenset(
    {
        "capitalize", "casefold", "center", "count", "endswith", "find", "index", "isalnum",
        "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
        "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust",
        "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
        "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines",
        "startswith", "strip", "swapcase", "title", "upper", "zfill",
    }
)  # fmt: skip
_METHODS: tuple[tuple[type, frozenset[str]], ...] = (
    (str, _STR_METHODS),
    (dict, frozenset({"get", "items", "keys", "values"})),
    (list, frozenset({"count", "index"})),
    (tuple, frozenset({"count", "index"})),
    (datetime.date, frozenset({"isoformat", "isoweekday", "strftime", "weekday"})),
    (datetime.time, frozenset({"isoformat", "strftime"})),
)
"""The methods of values a template may call; `str.format` is not one (its fields reach
attributes), nor anything that builds a copy of unbounded size without a check below."""

# Internal filters the compiled template calls around loops, `~` and output to count work.
_LOOP, _CONCAT, _OUTPUT = "_promptum_loop", "_promptum_concat", "_promptum_output"


class TemplateError(ValueError):
    """A template does not parse, uses an undefined variable, or does what a suite may not."""


def is_template(text: str) -> bool:
    """Whether `text` uses Jinja syntax; plain text is used as is, without loading Jinja."""
    return "{{" in text or "{%" in text or "{#" in text


def _security_error(message: str) -> Exception:
    from jinja2.exceptions import SecurityError

    return SecurityError(message)


class _Budget:
    """What is left of one rendering's allowance of built values, output and steps."""

    def __init__(self) -> None:
        self.size = MAX_TEMPLATE_SIZE
        self.output = MAX_TEMPLATE_SIZE
        self.steps = MAX_TEMPLATE_STEPS
        self.deadline = time.monotonic() + MAX_TEMPLATE_SECONDS

    def spend(self, size: int) -> None:
        self.size -= size
        if self.size < 0:
            raise _security_error(
                f"templates cannot build more than {MAX_TEMPLATE_SIZE:,} characters (text "
                "and list items, counting intermediate values); this one builds more"
            )

    def afford(self, size: int) -> None:
        """Refuse before building a value of `size` the budget cannot pay for."""
        if size > self.size:
            self.spend(size)

    def write(self, value: Any) -> Any:
        """Count what `{{ ... }}` writes; its values were counted as they were built."""
        self.output -= _size(value, self.output)
        if self.output < 0:
            raise _security_error(
                f"templates cannot write more than {MAX_TEMPLATE_SIZE:,} characters; this "
                "one writes more"
            )
        return value

    def step(self) -> None:
        self.steps -= 1
        if self.steps < 0:
            raise _security_error(
                f"templates cannot make more than {MAX_TEMPLATE_STEPS:,} loop iterations, "
                "calls, filters and tests; simplify the loops"
            )
        if time.monotonic() > self.deadline:
            raise _security_error(
                f"templates cannot take more than {MAX_TEMPLATE_SECONDS:g} seconds; simplify "
                "the loops"
            )


_budget: ContextVar[_Budget] = ContextVar("promptum_template_budget")


def _current() -> _Budget:
    # Outside `render` (Jinja folding a constant expression) each check gets a fresh budget.
    return _budget.get(None) or _Budget()


_SEQUENCES = (str, bytes, bytearray, list, tuple)
"""What `*` and `+` repeat or join: a YAML `!!binary` var is bytes, as costly as text."""


def _size(value: Any, limit: int) -> int:
    """Characters plus items in `value`, following nested lists and mappings; stops past limit.

    Shared references count each time, as `str()` of the value would write them out.
    """
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str | bytes | bytearray | range):
            total += len(item)
        elif isinstance(item, dict):
            total += len(item)
            if total <= limit:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            total += len(item)
            if total <= limit:
                stack.extend(item)
        else:
            total += 1
    return total


def _spend_on(value: Any) -> Any:
    budget = _current()
    budget.spend(_size(value, budget.size))
    return value


def _gather(values: Iterable[Any], separator: str = "") -> list[Any]:
    """`values` as a list, refused as soon as joining them would exceed the budget."""
    budget = _current()
    items: list[Any] = []
    total = 0
    for item in values:
        budget.step()
        total += _size(item, budget.size) + len(separator)
        budget.afford(total)
        items.append(item)
    return items


def _counted(values: Iterable[Any]) -> Iterator[Any]:
    budget = _current()
    for item in values:
        budget.step()
        yield item


def _int_bits(value: Any) -> int:
    return abs(value).bit_length() if isinstance(value, int) else 0


_TOO_BIG_NUMBER = "templates cannot compute integers of more than about 1,000 digits"


def _check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse an operation whose result would be too large, before computing it."""
    budget = _current()
    if operator == "%" and isinstance(left, str):
        raise _security_error(
            "templates cannot format text with `%`; join text with `~` and round numbers "
            "with the `round` filter"
        )
    if operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
        if _int_bits(left) > 1 and _int_bits(left) * right > MAX_INT_BITS:
            raise _security_error(_TOO_BIG_NUMBER)
    elif operator == "*":
        if isinstance(left, int) and isinstance(right, int):
            if _int_bits(left) + _int_bits(right) > MAX_INT_BITS:
                raise _security_error(_TOO_BIG_NUMBER)
            return
        for sequence, times in ((left, right), (right, left)):
            if isinstance(times, int) and isinstance(sequence, _SEQUENCES):
                budget.afford(_size(sequence, budget.size) * max(times, 0))
    elif operator == "+" and isinstance(left, _SEQUENCES):
        budget.afford(_size(left, budget.size) + _size(right, budget.size))


# Filters whose output size is set by an argument, checked before they build anything.


def _center(value: Any, width: int = 80) -> str:
    _current().afford(width)
    return str(value).center(width)


def _indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    from jinja2 import filters

    indention = len(width) if isinstance(width, str) else width
    _current().afford(len(s) + (s.count("\n") + 2) * max(indention, 0))
    return filters.do_indent(s, width, first, blank)


def _replace(s: str, old: str, new: str, count: int | None = None) -> str:
    # Jinja's `replace` differs from this only when autoescaping, which prompts never do.
    s, old, new = str(s), str(old), str(new)
    found = len(s) + 1 if old == "" else s.count(old)
    if count is not None and count >= 0:
        found = min(found, count)
    _current().afford(len(s) + found * max(len(new) - len(old), 0))
    return s.replace(old, new, -1 if count is None else count)


def _pieces(number: int, built: bool) -> None:
    """Refuse `batch`/`slice` making too many pieces; charge them when they are all built."""
    if number > MAX_RANGE:
        raise _security_error(f"templates cannot make more than {MAX_RANGE:,} pieces")
    if built:
        _current().spend(number)


def _batch(value: Iterable[Any], linecount: int, fill_with: Any = None) -> Iterator[list[Any]]:
    from jinja2 import filters

    _pieces(linecount, built=fill_with is not None)  # filling pads the last batch out
    return filters.do_batch(value, linecount, fill_with)


def _slice(value: Iterable[Any], slices: int, fill_with: Any = None) -> Iterator[list[Any]]:
    from jinja2 import filters

    _pieces(slices, built=True)  # one list per slice, however few items
    return filters.sync_do_slice(list(value), slices, fill_with)


_NOT_JSON = object()


def _from_json(value: Any, default: Any = _NOT_JSON) -> Any:
    """`value` (JSON text) parsed; text that is not JSON is an error, or `default` if given."""
    try:
        if not isinstance(value, str):
            raise TypeError(f"from_json parses text, not a {type(value).__name__}")
        return json.loads(value)
    except (TypeError, ValueError, RecursionError) as exc:
        if default is not _NOT_JSON:
            return default
        raise ValueError(f"from_json: {_shortened(str(exc))}") from exc


def _word_count(value: Any) -> int:
    """Words separated by whitespace, as `text.split()` counts them."""
    return len(str(value).split())


def _affixes(value: Any) -> str | tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else str(value)


def _starts_with(value: Any, prefix: Any) -> bool:
    return isinstance(value, str) and value.startswith(_affixes(prefix))


def _ends_with(value: Any, suffix: Any) -> bool:
    return isinstance(value, str) and value.endswith(_affixes(suffix))


def _shortened(text: str, limit: int = 200) -> str:
    """An error message cut to `limit` characters: it may quote a long value."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


_OWN_FILTERS: dict[str, Callable[..., Any]] = {"from_json": _from_json, "word_count": _word_count}
"""promptum's filters: parse JSON text, count words (what expression checks most often need)."""

_OWN_TESTS: dict[str, Callable[..., Any]] = {"startswith": _starts_with, "endswith": _ends_with}
"""promptum's tests: `output is startswith('Ahoy')` (a prefix, or a list of prefixes)."""


def _wrapped_filters() -> dict[str, Callable[..., Any]]:
    """Jinja's filters of FILTERS, each charging what it builds to the budget."""
    import jinja2
    from jinja2 import filters

    def charged(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)  # keeps Jinja's pass_context/pass_environment marker
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            _current().step()  # `map` and `select` call filters once per item
            return _spend_on(function(*args, **kwargs))

        return wrapper

    @jinja2.pass_eval_context
    def join(
        eval_ctx: jinja2.nodes.EvalContext,
        value: Iterable[Any],
        d: str = "",
        attribute: str | int | None = None,
    ) -> str:
        return filters.sync_do_join(eval_ctx, _gather(value, str(d)), d, attribute)

    @jinja2.pass_eval_context
    def tojson(eval_ctx: jinja2.nodes.EvalContext, value: Any, indent: Any = None) -> Any:
        width = len(indent) if isinstance(indent, str) else indent or 0
        if width > MAX_JSON_INDENT:
            raise _security_error(f"templates cannot indent JSON by more than {MAX_JSON_INDENT}")
        return filters.do_tojson(eval_ctx, value, indent)

    @jinja2.pass_environment
    def wordwrap(
        environment: jinja2.Environment,
        s: str,
        width: int = 79,
        break_long_words: bool = True,
        wrapstring: str | None = None,
        break_on_hyphens: bool = True,
    ) -> str:
        breaks = len(s) // max(width, 1) + s.count("\n") + 1
        _current().afford(len(s) + breaks * len(wrapstring or "\n"))
        return filters.do_wordwrap(
            environment, s, width, break_long_words, wrapstring, break_on_hyphens
        )

    checked: dict[str, Callable[..., Any]] = {
        "batch": _batch,
        "center": _center,
        "indent": _indent,
        "join": join,
        "replace": _replace,
        "slice": _slice,
        "tojson": tojson,
        "wordwrap": wordwrap,
    }
    chosen = {name: charged(checked.get(name, filters.FILTERS[name])) for name in FILTERS}
    chosen.update({name: charged(function) for name, function in _OWN_FILTERS.items()})
    chosen[_LOOP] = _counted
    chosen[_CONCAT] = lambda parts: _spend_on("".join(str(part) for part in _gather(parts)))
    chosen[_OUTPUT] = lambda value: _current().write(value)
    return chosen


def _stepped(test: Any) -> Callable[..., Any]:
    @functools.wraps(test)  # keeps Jinja's pass_environment marker
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _current().step()  # `select` and `reject` call tests once per item
        return test(*args, **kwargs)

    return wrapper


def _range(*args: int) -> range:
    try:
        numbers = range(*args)
        too_long = len(numbers) > MAX_RANGE
    except OverflowError:
        too_long = True
    if too_long:
        raise _security_error(f"templates cannot make a range of more than {MAX_RANGE:,} numbers")
    _current().spend(len(numbers))
    return numbers


_SIZED_STR_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})


def _call_method(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call a method of a string, mapping, list or date if it is one of _METHODS."""
    owner, name = method.__self__, method.__name__
    if not any(isinstance(owner, kind) and name in names for kind, names in _METHODS):
        raise _security_error(
            f"templates cannot call `{type(owner).__name__}.{name}`; docs/suites.md lists "
            "the methods they can"
        )
    budget = _current()
    if isinstance(owner, str):
        if name == "replace":
            return _replace(owner, *args, **kwargs)
        if name == "join" and args:
            args = (_gather(args[0], owner), *args[1:])
        elif name in _SIZED_STR_METHODS and args and isinstance(args[0], int):
            budget.afford(args[0])
    elif name == "strftime" and args:
        budget.afford(len(str(args[0])) * 16)  # `%c` writes 24 characters for 2
    return method(*args, **kwargs)


def _describe(value: Any) -> str:
    name = getattr(value, "__qualname__", None)
    return f"`{name}`" if isinstance(name, str) else f"a {type(value).__name__}"


def _fail(node: Any, source: str, message: str) -> TemplateError:
    where = f" (line {node.lineno} of the template)" if "\n" in source else ""
    return TemplateError(
        f"templates cannot {message}{where}; a template sees only its variables, filters and tests"
    )


def _guard(environment: jinja2.Environment, source: str) -> jinja2.nodes.Template:
    """Parse `source`, refuse what a template may not do, count loops, `~` and output."""
    return _guarded(environment, environment.parse(source), source)


def _guarded(
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
                node.iter = counted(node.iter, _LOOP)
            elif isinstance(node, nodes.Concat):
                return counted(nodes.List(node.nodes, lineno=node.lineno), _CONCAT)
            elif isinstance(node, nodes.Output):
                node.nodes = [
                    part if isinstance(part, nodes.TemplateData) else counted(part, _OUTPUT)
                    for part in node.nodes
                ]
            return node

    tree = Guard().visit(parsed)
    assert isinstance(tree, nodes.Template)
    tree.set_environment(environment)
    return tree


def _environment() -> jinja2.Environment:
    """The sandbox templates render in."""
    return _sandbox(expressions=False)


def _expression_environment() -> jinja2.Environment:
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
            _check_binop(operator, left, right)
            return _spend_on(super().call_binop(context, operator, left, right))

        def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
            # Raised at once: an Undefined would let `is defined` probe for what exists.
            raise _security_error(
                f"templates cannot access `{attribute}` of a {type(obj).__name__}; a template "
                "sees only its variables, filters and tests"
            )

        def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
            if super().wrap_str_format(value) is not None:
                raise _security_error(
                    "templates cannot use `str.format`: its fields reach attributes; join "
                    "text with `~`"
                )
            return None

        def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            _current().step()
            if isinstance(obj, jinja2.Undefined):  # fails saying which name is undefined
                return obj(*args, **kwargs)
            if isinstance(obj, LoopContext) and len(args) == 1:  # a recursive loop
                args = (_counted(args[0]),)
            elif isinstance(obj, types.BuiltinMethodType | types.MethodType) and isinstance(
                obj.__self__, str | dict | list | tuple | datetime.date | datetime.time
            ):
                return _spend_on(_call_method(obj, args, kwargs))
            elif isinstance(obj, types.MethodType) and isinstance(obj.__self__, LoopContext):
                if obj.__name__ not in ("cycle", "changed"):
                    raise _security_error(f"templates cannot call `loop.{obj.__name__}`")
            elif not (isinstance(obj, Macro) or obj is _range or obj is dict):
                raise _security_error(f"templates cannot call {_describe(obj)}")
            return _spend_on(super().call(context, obj, *args, **kwargs))

    environment = Environment(
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False
    )
    # No lipsum, cycler, joiner or namespace: globals are objects whose attributes lead out.
    environment.globals.clear()
    environment.globals.update(range=_range, dict=dict)
    environment.filters.clear()
    environment.filters.update(_wrapped_filters())
    environment.tests.update(_OWN_TESTS)
    environment.tests.update({name: _stepped(test) for name, test in environment.tests.items()})
    if expressions:
        environment.filters[_READ] = jinja2.pass_environment(_read)
    return environment


@functools.lru_cache(maxsize=1024)
def _compile(source: str) -> jinja2.Template:
    environment = _environment()
    return environment.from_string(_guard(environment, source))


def _runtime_line(exc: BaseException, source: str) -> str:
    """Where in a multi-line template a runtime error happened, from Jinja's traceback."""
    line = None
    trace = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<template>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return f" (line {line} of the template)" if line and "\n" in source else ""


_PLAIN_NAME = re.compile(r"\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}")
_PLAIN_VALUES = (str, int, float)
"""What a plain `{{ name }}` writes as Jinja does, `str(value)`; other values go to Jinja."""


@functools.lru_cache(maxsize=1024)
def _plain(text: str) -> tuple[str, ...] | None:
    r"""`text` split into literal text and names when it is only text and `{{ name }}`s.

    Such a template renders by substitution, as Jinja would (a row's prompt is one, a
    million times over); anything else (filters, tags, comments, whitespace control, a
    `\r` Jinja would turn into `\n`, a name Jinja reads as a constant) returns None.
    """
    parts = tuple(_PLAIN_NAME.split(text))
    for literal in parts[::2]:
        if "\r" in literal or is_template(literal):
            return None
    for name in parts[1::2]:
        if keyword.iskeyword(name) or name in ("true", "false", "none"):
            return None
    return parts


def _substituted(parts: tuple[str, ...], variables: Mapping[str, Any]) -> str | None:
    """`parts` with each name's value written in; None unless each is plain and not too long."""
    pieces = list(parts)
    written = 0
    for index in range(1, len(parts), 2):
        value = variables.get(parts[index], _plain)  # a missing name is Jinja's to report
        if type(value) not in _PLAIN_VALUES:
            return None
        pieces[index] = text = str(value)
        written += len(text)
    if written > MAX_TEMPLATE_SIZE:
        return None  # Jinja's budget refuses it, and says so
    return "".join(pieces)


def render(text: str, variables: Mapping[str, Any]) -> str:
    """Render `text` with `variables`; raise TemplateError saying what to fix."""
    if not is_template(text):
        return text
    parts = _plain(text)
    if parts is not None:
        done = _substituted(parts, variables)
        if done is not None:
            return done
    import jinja2
    from jinja2.exceptions import SecurityError

    token = _budget.set(_Budget())
    try:
        return _compile(text).render(variables)
    except TemplateError:
        raise
    except SecurityError as exc:
        raise TemplateError(f"{exc}{_runtime_line(exc, text)}") from exc
    except jinja2.UndefinedError as exc:
        defined = ", ".join(sorted(variables)) or "none"
        raise TemplateError(
            f"template variable error: {exc.message}; define it under `vars` "
            f"(defined here: {defined})"
        ) from exc
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(
            f"template syntax error on line {exc.lineno} of the template: {exc.message}"
        ) from exc
    except Exception as exc:  # a filter or expression failed on this case's values
        raise TemplateError(f"template failed: {type(exc).__name__}: {exc}") from exc
    finally:
        _budget.reset(token)


# What a template reads, found without rendering it (to check it before its values exist).


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


# Expressions: `output | length < 500`, the value of one Jinja expression rather than text.


class Attribute(NamedTuple):
    """An `owner.name` an expression reads, as it is written."""

    owner: str
    """What the name is read from, as written: `output`, `json.items`, `(output | lower)`."""
    name: str
    arguments: tuple[str, ...] | None
    """The arguments, as written, when it is called (`owner.name(...)`); else None."""


class Expression:
    """A compiled sandboxed expression: call `evaluate` with its variables for its value."""

    __slots__ = ("_names", "_template", "attributes", "names_read", "source", "vars_read")

    def __init__(
        self,
        source: str,
        names: frozenset[str],
        template: jinja2.Template,
        names_read: frozenset[str],
        vars_read: frozenset[str],
        attributes: tuple[Attribute, ...],
    ) -> None:
        self.source = source
        self._names = names
        self._template = template
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

        token = _budget.set(_Budget())
        try:
            context = self._template.new_context(dict(variables))
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
            raise TemplateError(_shortened(str(exc.message))) from exc
        except Exception as exc:  # a filter or operation failed on this response's values
            raise TemplateError(f"{type(exc).__name__}: {_shortened(str(exc))}") from exc
        finally:
            _budget.reset(token)


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


@functools.lru_cache(maxsize=1024)
def _compile_expression(source: str, names: frozenset[str]) -> Expression:
    import jinja2
    from jinja2 import nodes
    from jinja2.parser import Parser

    environment = _expression_environment()
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
    known = names | set(environment.globals)
    for name in _nodes(expression, nodes.Name):
        if name.name not in known:
            raise TemplateError(
                f"unknown variable {name.name!r}{_did_you_mean(name.name, known)}; an "
                f"expression sees {', '.join(sorted(names))}"
            )
    for node in _nodes(expression, (nodes.Filter, nodes.Test)):
        table = environment.filters if isinstance(node, nodes.Filter) else environment.tests
        kind = "filter" if isinstance(node, nodes.Filter) else "test"
        # `_promptum_read` and the like are what compiling adds, not for expressions to use.
        allowed = node.name in table and not node.name.startswith("_")
        if not allowed and not (kind == "filter" and node.name in _JINJA_ONLY):
            raise TemplateError(
                f"unknown {kind} {node.name!r}{_did_you_mean(node.name, table)}; "
                "docs/expressions.md lists them"
            )
    # Read before compiling, which rewrites the tree's reads of fields.
    probed = _probed(expression)
    read = frozenset(name.name for name in _nodes(expression, nodes.Name))
    vars_read, attributes = _vars_read(expression, probed), _attributes(expression)
    body = [nodes.Assign(nodes.Name("result", "store"), expression, lineno=1)]
    guarded = _guarded(environment, nodes.Template(body, lineno=1), source)
    tree = _reading_fields(environment, guarded, probed)
    try:
        template = environment.from_string(tree)
    except jinja2.TemplateSyntaxError as exc:  # what compiling finds (e.g. `x | 1`)
        raise TemplateError(f"expression syntax error: {exc.message}") from exc
    except Exception as exc:  # a constant part folded while compiling, and refused
        raise TemplateError(f"{type(exc).__name__}: {_shortened(str(exc))}") from exc
    return Expression(source, names, template, read, vars_read, attributes)


# Jinja's own filters that are refused with their reason (`attr`, `format`...) by the guard.
_JINJA_ONLY = frozenset({"attr", "format", "random", "pprint", "escape", "e", "safe"})


def _nodes(tree: jinja2.nodes.Node, kinds: Any) -> Iterator[Any]:
    """`tree` and the nodes within it of `kinds` (Jinja's `find_all` skips the tree itself)."""
    if isinstance(tree, kinds):
        yield tree
    yield from tree.find_all(kinds)


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, [k for k in known if not k.startswith("_")], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _probed(expression: jinja2.nodes.Expr) -> frozenset[int]:
    """The reads (`a.b`, `a['b']`, and what they read from) only probed for being there.

    `json.total is defined` and `vars.limit | default(10)` ask whether a field exists: a
    missing one is undefined there, where anywhere else it is an error naming it.
    """
    from jinja2 import nodes

    found: set[int] = set()
    for node in _nodes(expression, (nodes.Test, nodes.Filter)):
        if isinstance(node, nodes.Test) and node.name not in ("defined", "undefined"):
            continue
        if isinstance(node, nodes.Filter) and node.name not in ("default", "d"):
            continue
        inner = node.node
        while isinstance(inner, nodes.Getattr | nodes.Getitem):
            found.add(id(inner))
            inner = inner.node
    return frozenset(found)


def _vars_read(expression: jinja2.nodes.Expr, probed: frozenset[int]) -> frozenset[str]:
    """The names an expression reads from `vars` by a constant: `vars.topic`, `vars['topic']`."""
    from jinja2 import nodes

    read: set[str] = set()
    # `vars.get('x', 1)`, `vars.keys()`: a method called, not a variable read.
    called = {id(call.node) for call in _nodes(expression, nodes.Call)}
    for node in _nodes(expression, (nodes.Getattr, nodes.Getitem)):
        if not (isinstance(node.node, nodes.Name) and node.node.name == "vars"):
            continue
        if id(node) in called or id(node) in probed:
            continue
        if isinstance(node, nodes.Getattr):
            read.add(node.attr)
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            read.add(node.arg.value)
    return frozenset(read)


def _attributes(expression: jinja2.nodes.Expr) -> tuple[Attribute, ...]:
    from jinja2 import nodes

    calls = {id(call.node): call for call in _nodes(expression, nodes.Call)}
    found = []
    for node in _nodes(expression, nodes.Getattr):
        call = calls.get(id(node))
        arguments = None if call is None else _arguments_written(call)
        found.append(Attribute(_operand_written(node.node), node.attr, arguments))
    return tuple(found)


# In an expression a mapping's `.name` and `[name]` are its fields, never its methods:
# `json.items` of `{"items": []}` is the list, not `dict.items`. Each read is compiled to
# `_READ`, which knows how the expression wrote it, to say which field is missing.

_READ = "_promptum_read"
_FIELDS_SHOWN = 12


def _reading_fields(
    environment: jinja2.Environment, tree: jinja2.nodes.Template, probed: frozenset[int]
) -> jinja2.nodes.Template:
    """`tree` with each `a.b`, `a.b(...)` and `a[b]` read through the `_READ` filter."""
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
            path = _written(node.node)
            super().generic_visit(node)  # what it is read from, and a computed key, first
            key = node.arg if isinstance(node, nodes.Getitem) else nodes.Const(node.attr)
            arguments = [key, nodes.Const(how), nodes.Const(path), nodes.Const(id(node) in probed)]
            return nodes.Filter(node.node, _READ, arguments, [], None, None, lineno=node.lineno)

    rewritten = Fields().visit(tree)
    assert isinstance(rewritten, nodes.Template)
    rewritten.set_environment(environment)
    return rewritten


def _read(
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
    return _shortened(f"{path} has no field {_shown_key(key)} ({fields})", 300)


def _not_in(owner: Any, key: Any, path: str, how: str) -> str:
    """What a read of a missing attribute or item of a value that is not a mapping says."""
    if how == "item" and isinstance(owner, Sized) and isinstance(key, int):
        return f"{path} has no item {key} (it has {len(owner)})"
    kind = _KINDS.get(type(owner), f"a {type(owner).__name__}")
    what = "item" if how == "item" else "field"
    return _shortened(f"{path} is {kind}, which has no {what} {_shown_key(key)}", 300)


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
    return _shortened(repr(key), 80)


# How the parts of an expression are written, to name them in messages.


def _written(node: jinja2.nodes.Node) -> str:
    """`node` as an expression writes it: `json.order`, `tool_calls[0]`, `(output | lower)`."""
    from jinja2 import nodes

    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Const):
        return _literal(node.value)
    if isinstance(node, nodes.Getattr):
        return f"{_operand_written(node.node)}.{node.attr}"
    if isinstance(node, nodes.Getitem):
        return f"{_operand_written(node.node)}[{_written(node.arg)}]"
    if isinstance(node, nodes.Slice):
        parts = (node.start, node.stop) if node.step is None else (node.start, node.stop, node.step)
        return ":".join("" if part is None else _written(part) for part in parts)
    if isinstance(node, nodes.Call):
        return f"{_operand_written(node.node)}({', '.join(_arguments_written(node))})"
    if isinstance(node, nodes.Filter) and node.node is not None:
        arguments = _arguments_written(node)
        called = f"({', '.join(arguments)})" if arguments else ""
        return f"{_written(node.node)} | {node.name}{called}"
    if isinstance(node, nodes.List | nodes.Tuple):
        return f"[{', '.join(_written(item) for item in node.items)}]"
    return "…"


def _operand_written(node: jinja2.nodes.Node) -> str:
    """`node` written to be read from (`.name`, `[k]`, a call): in brackets unless it is simple."""
    from jinja2 import nodes

    text = _written(node)
    simple = (nodes.Name, nodes.Const, nodes.Getattr, nodes.Getitem, nodes.Call, nodes.List)
    return text if isinstance(node, simple) else f"({text})"


def _arguments_written(node: jinja2.nodes.Call | jinja2.nodes.Filter) -> tuple[str, ...]:
    positional = [_written(argument) for argument in node.args]
    named = [f"{pair.key}={_written(pair.value)}" for pair in node.kwargs]
    return (*positional, *named)


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return str(value).lower()
    return _shortened(repr(value), 60)
