"""What an `expr` check or a `transform` sees of one response, and its compiled expression."""

from __future__ import annotations

import json
from collections.abc import Collection
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from promptum.checks._custom import CheckInput
from promptum.checks._javascript_hints import javascript_hint, javascript_written
from promptum.templating import Expression, TemplateError, compile_expression, is_template
from promptum.validation import parse_json, unfence

NAMES = ("output", "json", "vars", "tool_calls", "latency_ms", "cost_usd", "tokens", "answer")
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
        raise ValueError(f"{exc}{javascript_hint(source)}") from exc
    # `output.length` compiles, and would fail on every response: refused before any is.
    written = javascript_written(compiled)
    if written:
        raise ValueError("; ".join(written))
    return compiled


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


def answer(check: CheckInput) -> Any:
    """The answer as data, as OpenAI's chat API gives it (and promptfoo's `output` is).

    The structured output when there is one (the case's response_model, or the mapping or
    list a transform gave); else, when the model called tools, the calls as OpenAI's
    `tool_calls` list (`[{id, type, function: {name, arguments}}]`, arguments as JSON text),
    or the whole message `{role, content, tool_calls}` when it also wrote text; else the text.
    """
    output = structured(check.output)
    if output is not None:
        return output
    calls = check.completion.tool_calls
    if not calls:
        return check.text
    shaped = [
        {
            "id": call.id,
            "type": "function",
            # As JSON.stringify writes it: the API's own text is not kept once parsed.
            "function": {
                "name": call.name,
                "arguments": json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":")),
            },
        }
        for call in calls
    ]
    if not check.text:
        return shaped
    return {"role": "assistant", "content": check.text, "tool_calls": shaped}


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
        "answer": answer(check) if read is None or "answer" in read else None,
    }
