"""The filters and tests of the sandbox: Jinja's that shape text and data, and promptum's own.

Each one is a step of the budget and pays for what it builds; those whose output size is
set by an argument are refused before they build anything.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from promptum.templating._budget import counted, current, gather, size, spend_on
from promptum.templating._errors import security_error, shortened
from promptum.templating._methods import replace
from promptum.templating._operators import MAX_RANGE

if TYPE_CHECKING:
    import jinja2

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

MAX_JSON_INDENT = 16
"""The widest indent of `tojson`, which repeats it on every line."""

# Internal filters the compiled template calls around loops, `~` and output to count work.
LOOP, CONCAT, OUTPUT = "_promptum_loop", "_promptum_concat", "_promptum_output"


def _center(value: Any, width: int = 80) -> str:
    current().afford(width)
    return str(value).center(width)


def _indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    from jinja2 import filters

    indention = len(width) if isinstance(width, str) else width
    current().afford(len(s) + (s.count("\n") + 2) * max(indention, 0))
    return filters.do_indent(s, width, first, blank)


def _pieces(number: int, built: bool) -> None:
    """Refuse `batch`/`slice` making too many pieces; charge them when they are all built."""
    if number > MAX_RANGE:
        raise security_error(f"templates cannot make more than {MAX_RANGE:,} pieces")
    if built:
        current().spend(number)


def _charged(pieces: Iterable[list[Any]]) -> Iterator[list[Any]]:
    """`pieces`, each a step and charged as it is built.

    `batch` builds them lazily: a filter reading them (`list`, another `batch`) would
    otherwise build them all unpaid.
    """
    budget = current()
    for piece in pieces:
        budget.step()
        budget.spend(len(piece) + 1)
        yield piece


def _batch(value: Iterable[Any], linecount: int, fill_with: Any = None) -> Iterator[list[Any]]:
    from jinja2 import filters

    _pieces(linecount, built=fill_with is not None)  # filling pads the last batch out
    return _charged(filters.do_batch(value, linecount, fill_with))


def _slice(value: Iterable[Any], slices: int, fill_with: Any = None) -> Iterator[list[Any]]:
    from jinja2 import filters

    _pieces(slices, built=True)  # one list per slice, however few items
    return filters.sync_do_slice(gather(value), slices, fill_with)


def _join(
    eval_ctx: jinja2.nodes.EvalContext,
    value: Iterable[Any],
    d: str = "",
    attribute: str | int | None = None,
) -> str:
    from jinja2 import filters

    return filters.sync_do_join(eval_ctx, gather(value, str(d)), d, attribute)


def _charged_json(value: Any, **options: Any) -> str:
    """`json.dumps`, charging its text as it is built."""
    budget, built, chunks = current(), 0, []
    for chunk in json.JSONEncoder(**options).iterencode(value):
        budget.in_time()  # a chunk passes up through one generator per level of nesting
        built += len(chunk)
        budget.afford(built)
        chunks.append(chunk)
    return "".join(chunks)


def _tojson(eval_ctx: jinja2.nodes.EvalContext, value: Any, indent: Any = None) -> Any:
    from jinja2 import filters
    from jinja2.utils import htmlsafe_json_dumps

    width = len(indent) if isinstance(indent, str) else indent or 0
    if width > MAX_JSON_INDENT:
        raise security_error(f"templates cannot indent JSON by more than {MAX_JSON_INDENT}")
    if indent is None:  # one line, whose length the value's size bounds
        return filters.do_tojson(eval_ctx, value)
    # Each line repeats the indent once per level of nesting: a deep value's JSON can be
    # far longer than the value, so it is charged as it is built.
    options = eval_ctx.environment.policies["json.dumps_kwargs"]
    return htmlsafe_json_dumps(value, dumps=_charged_json, **options, indent=indent)


def _sum(
    environment: jinja2.Environment,
    iterable: Iterable[Any],
    attribute: str | int | None = None,
    start: Any = 0,
) -> Any:
    """Jinja's `sum`, charging each partial sum of lists or tuples (`sum(start=[])`)."""
    from jinja2 import filters

    if not isinstance(start, list | tuple):  # numbers; Python refuses to sum text
        return filters.sync_do_sum(environment, iterable, attribute, start)
    if attribute is not None:
        iterable = map(filters.make_attrgetter(environment, attribute), iterable)
    # Each `+` copies the sum so far: summing n lists builds n partial sums, n²/2 items.
    budget = current()
    total, built = start, size(start, budget.size)
    for value in counted(iterable):
        built += size(value, budget.size)
        budget.spend(built)
        total = total + value
    return total


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
        raise ValueError(f"from_json: {shortened(str(exc))}") from exc


def _word_count(value: Any) -> int:
    """Words separated by whitespace, as `text.split()` counts them."""
    return len(str(value).split())


def _affixes(value: Any) -> str | tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else str(value)


def _starts_with(value: Any, prefix: Any) -> bool:
    return isinstance(value, str) and value.startswith(_affixes(prefix))


def _ends_with(value: Any, suffix: Any) -> bool:
    return isinstance(value, str) and value.endswith(_affixes(suffix))


_OWN_FILTERS: dict[str, Callable[..., Any]] = {"from_json": _from_json, "word_count": _word_count}
"""promptum's filters: parse JSON text, count words (what expression checks most often need)."""

_OWN_TESTS: dict[str, Callable[..., Any]] = {"startswith": _starts_with, "endswith": _ends_with}
"""promptum's tests: `output is startswith('Ahoy')` (a prefix, or a list of prefixes)."""


def _stepped(function: Callable[..., Any], charged: bool) -> Callable[..., Any]:
    """`function` counted as a step (`map`, `select` call one per item), charged if `charged`."""

    @functools.wraps(function)  # keeps Jinja's pass_context/pass_environment marker
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        current().step()
        value = function(*args, **kwargs)
        return spend_on(value) if charged else value

    return wrapper


def sandbox_filters() -> dict[str, Callable[..., Any]]:
    """The filters of FILTERS and promptum's own, each charging what it builds to the budget."""
    import jinja2
    from jinja2 import filters

    from promptum.templating._wordwrap import wordwrap  # textwrap only once a template runs

    checked: dict[str, Callable[..., Any]] = {
        "batch": _batch,
        "center": _center,
        "indent": _indent,
        "join": jinja2.pass_eval_context(_join),
        "replace": replace,
        "slice": _slice,
        "sum": jinja2.pass_environment(_sum),
        "tojson": jinja2.pass_eval_context(_tojson),
        "wordwrap": jinja2.pass_environment(wordwrap),
    }
    chosen = {name: checked.get(name, filters.FILTERS[name]) for name in FILTERS}
    chosen.update(_OWN_FILTERS)
    counting = {name: _stepped(function, charged=True) for name, function in chosen.items()}
    counting[LOOP] = counted
    counting[CONCAT] = lambda parts: spend_on("".join(str(part) for part in gather(parts)))
    counting[OUTPUT] = lambda value: current().write(value)
    return counting


def sandbox_tests(jinja_tests: Mapping[str, Any]) -> dict[str, Callable[..., Any]]:
    """Jinja's tests and promptum's own, each counted as a step of the budget."""
    tests = {**jinja_tests, **_OWN_TESTS}
    return {name: _stepped(test, charged=False) for name, test in tests.items()}
