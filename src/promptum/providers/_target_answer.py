"""What a target returned, as the `Completion` every check reads; the wrong type is an error."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from promptum.providers._base import ModelRequest
from promptum.providers._errors import ProviderError
from promptum.providers._tools import parsed_call
from promptum.values.completion import Completion, ToolCall
from promptum.values.target_result import TargetResult


class TargetError(ProviderError, label="target failed"):
    """The target raised or answered with something promptum cannot grade; not retried."""


def target_input(request: ModelRequest, name: str) -> Any:
    """One of the case's rendered inputs a target is called with, by its name."""
    if name == "query":  # the last user message: what the application was asked
        return next((m.content for m in reversed(request.messages) if m.role == "user"), "")
    if name == "messages":
        return [m.model_dump() for m in request.messages]
    if name == "vars":
        return dict(request.vars)
    if name == "conversation_id":
        return request.conversation_id
    return list(request.context) if request.context is not None else None


INPUTS = ("query", "messages", "vars", "context", "conversation_id")
"""The inputs a target may name as parameters, besides the case's variables
(``conversation_id`` is None outside a conversation)."""


def target_inputs(request: ModelRequest) -> dict[str, Any]:
    """Every rendered input of the case: query, messages, vars and context."""
    return {name: target_input(request, name) for name in INPUTS}


def _structured(value: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    try:
        return json.dumps(value, ensure_ascii=False), value
    except (TypeError, ValueError) as exc:
        raise TargetError(f"returned a dict that is not JSON: {exc}") from exc


def _tool_calls(calls: Any) -> tuple[ToolCall, ...]:
    made = []
    for call in calls:
        if isinstance(call, ToolCall):
            made.append(call)
        elif isinstance(call, dict) and isinstance(call.get("name"), str):
            made.append(parsed_call(call["name"], call.get("arguments") or {}, call.get("id")))
        else:
            raise TargetError(
                f"a tool call is a {type(call).__name__}, not a promptum.ToolCall or a "
                'mapping {"name": ..., "arguments": {...}}'
            )
    return tuple(made)


def completion_of(value: Any, model: str, latency_ms: float | None = None) -> Completion:
    """The completion of what a target returned; the wrong type raises `TargetError`."""
    if isinstance(value, TargetResult):
        text, output = value.text, value.output
        if output is not None and not text:
            text = _structured(output)[0]
        return Completion(
            text=text,
            output=output,
            model=model,
            tool_calls=_tool_calls(value.tool_calls),
            input_tokens=value.input_tokens,
            output_tokens=value.output_tokens,
            cost_usd=value.cost_usd,
            latency_ms=latency_ms,
        )
    if isinstance(value, str):
        return Completion(text=value, model=model, latency_ms=latency_ms)
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        text, output = _structured(value)
        return Completion(text=text, output=output, model=model, latency_ms=latency_ms)
    raise TargetError(
        f"returned {type(value).__name__}, not text, a dict, a pydantic model or "
        "promptum.TargetResult"
    )
