"""What an `expr` check or a `transform` sees of one response, and its compiled expression.

JavaScript written as an expression (a promptfoo assertion: `output.length`, `&&`) is refused
when it compiles, saying how an expression writes it.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from promptum.checks._custom import CheckInput
from promptum.templating import (
    Attribute,
    Expression,
    TemplateError,
    compile_expression,
    is_template,
)
from promptum.validation import parse_json, unfence

NAMES = ("output", "json", "vars", "tool_calls", "latency_ms", "cost_usd", "tokens")
"""The variables an expression may read (docs/expressions.md)."""


@lru_cache(maxsize=4096)
def expression(source: str) -> Expression:
    """`source` compiled once however many checks and cases repeat it; ValueError if it cannot."""
    if not isinstance(source, str) or not source.strip():
        raise ValueError("an expression is needed, e.g. `output | length < 500`")
    if is_template(source):
        # Filling a var's text into an expression would let the var change what it computes.
        raise ValueError(
            "an expression reads the case's variables as `vars.name`: template tags "
            "(`{{ }}`, `{% %}`) are not filled in here (for the text, write `'{' ~ '{'`)"
        )
    try:
        compiled = compile_expression(source, NAMES)
    except TemplateError as exc:
        raise ValueError(f"{exc}{_javascript_hint(source)}") from exc
    # `output.length` compiles, and would fail on every response: refused before any is.
    written = _javascript_written(compiled)
    if written:
        raise ValueError("; ".join(written))
    return compiled


# What JavaScript writes (a promptfoo assertion) and does not parse as Jinja, and how a
# Jinja expression says it.
_JAVASCRIPT = (
    (re.compile(r"&&"), "`&&` → `and`"),
    (re.compile(r"\|\|"), "`||` → `or`"),
    (re.compile(r"(?<![!=])==="), "`===` → `==`"),
    (re.compile(r"!=="), "`!==` → `!=`"),
    (re.compile(r"!(?!=)"), "`!x` → `not x`"),
    (re.compile(r"\.length\b"), "`.length` → `| length`"),
    (re.compile(r"\.includes\("), "`.includes` → `'x' in output`"),
    (re.compile(r"\bJSON\.parse\("), "`JSON.parse` → `output | from_json`"),
    (re.compile(r"\bMath\.(?:min|max)\("), "`Math.min(a, b)` → `[a, b] | min`"),
    (re.compile(r"\bnull\b"), "`null` → `none`"),
    (re.compile(r"\bundefined\b"), "`x === undefined` → `x is not defined`"),
    (re.compile(r"\?.*:"), "`c ? a : b` → `a if c else b`"),
    (re.compile(r"=>"), "`x => ...` → the `map`, `select` and `reject` filters"),
)


def _javascript_hint(source: str) -> str:
    found = [jinja for pattern, jinja in _JAVASCRIPT if pattern.search(source)]
    if not found:
        return ""
    return f" (this looks like JavaScript; in Jinja: {', '.join(found)})"


# JavaScript's properties and methods of text and lists, which Jinja would read as a field
# that is not there, and how an expression writes each: {0} is what they are read from,
# {1} and {2} the arguments.
_JAVASCRIPT_PROPERTIES = {"length": "{0} | length"}
_JAVASCRIPT_METHODS = {
    "includes": "{1} in {0}",
    "toLowerCase": "{0} | lower",
    "toUpperCase": "{0} | upper",
    "trim": "{0} | trim",
    "trimStart": "{0}.lstrip()",
    "trimEnd": "{0}.rstrip()",
    "startsWith": "{0} is startswith({1})",
    "endsWith": "{0} is endswith({1})",
    "toString": "{0} | string",
    "replaceAll": "{0} | replace({1}, {2})",
    "substring": "{0}[{1}:{2}]",
    "charAt": "{0}[{1}]",
}


_NOT_MAPPINGS = ("output", "(output", "tool_calls", "(tool_calls")
"""How an owner that is text or a list is written: `.length` of it is never a field."""


def _javascript_written(compiled: Expression) -> list[str]:
    """What to write for each JavaScript property or method read: `output | length`..."""
    fixes: dict[str, str] = {}
    notes: dict[str, str] = {}
    for attribute in sorted(compiled.attributes, key=_written_length):
        table = _JAVASCRIPT_PROPERTIES if attribute.arguments is None else _JAVASCRIPT_METHODS
        spelling = table.get(attribute.name)
        if spelling is None:
            continue
        owner = attribute.owner
        for inner, fix in fixes.items():  # `output.toLowerCase().includes('a')`
            owner = owner.replace(inner, f"({fix})")
        text = _written(attribute)
        fixes[text] = spelling.format(owner, *(attribute.arguments or ()), "'x'", "'y'")
        if attribute.arguments is None and not attribute.owner.startswith(_NOT_MAPPINGS):
            # A JSON field may be called `length`: a subscript reads it.
            notes[text] = f" (a field named `{attribute.name}` is `{owner}['{attribute.name}']`)"
    return [
        f"`{text}` is JavaScript; an expression writes `{fix}`{notes.get(text, '')}"
        for text, fix in fixes.items()
        if not any(text in other for other in fixes if other != text)  # the outermost
    ]


def _written(attribute: Attribute) -> str:
    called = "" if attribute.arguments is None else f"({', '.join(attribute.arguments)})"
    return f"{attribute.owner}.{attribute.name}{called}"


def _written_length(attribute: Attribute) -> int:
    return len(_written(attribute))


def parsed_answer(text: str) -> Any:
    """The response parsed as JSON (raw or one fenced code block), else None."""
    for candidate in (text, unfence(text)):
        if candidate is None:
            continue
        try:
            return parse_json(candidate)
        except ValueError:
            continue
    return None


def structured(output: Any) -> Any:
    """The structured output as plain data (a pydantic instance as its JSON form)."""
    if isinstance(output, BaseModel):
        return output.model_dump(mode="json")
    return output


def variables(check: CheckInput, read: Collection[str] | None = None) -> dict[str, Any]:
    """The values of NAMES for one response (`json` parsed only when the expression reads it)."""
    completion = check.completion
    output = structured(check.output)
    if output is None and (read is None or "json" in read):
        output = parsed_answer(check.text)
    tokens_in, tokens_out = completion.input_tokens, completion.output_tokens
    total = (
        None if tokens_in is None and tokens_out is None else (tokens_in or 0) + (tokens_out or 0)
    )
    return {
        "output": check.text,
        "json": output,
        # A copy: the sandbox calls `get`, `keys`... of a dict, not of a read-only proxy.
        "vars": dict(check.vars) if read is None or "vars" in read else check.vars,
        "tool_calls": [
            {"name": call.name, "arguments": call.arguments} for call in completion.tool_calls
        ],
        "latency_ms": completion.latency_ms,
        "cost_usd": completion.cost_usd,
        "tokens": {"input": tokens_in, "output": tokens_out, "total": total},
    }
