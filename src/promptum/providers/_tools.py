"""Tool calls across providers: OpenAI's shapes are the lingua franca, converted here.

Suites write tools as OpenAI function schemas and replay conversations in OpenAI's message
shape; Anthropic's Messages API gets them converted. Whatever the provider, a tool call
comes back as a `ToolCall` with parsed arguments, checked against the tool's schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from promptum.validation import compiled_schema
from promptum.values.case_result import Message
from promptum.values.completion import ToolCall


def tool_name(tool: dict[str, Any]) -> str:
    """The function name of an OpenAI tool schema."""
    return str(tool.get("function", {}).get("name", ""))


def openai_message(message: Message) -> dict[str, Any]:
    """One message as the chat-completions API takes it."""
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["tool_calls"] = [
            {
                "id": call.id or f"call_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for index, call in enumerate(message.tool_calls)
        ]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    return data


def parsed_call(name: str, arguments: Any, call_id: str | None = None) -> ToolCall:
    """A tool call from a provider's raw arguments (a JSON string or an object)."""
    if isinstance(arguments, dict):
        return ToolCall(name=name, arguments=arguments, id=call_id)
    try:
        value = json.loads(arguments or "{}")
    except (TypeError, ValueError) as exc:
        return ToolCall(name=name, id=call_id, error=f"arguments are not JSON: {exc}")
    if not isinstance(value, dict):
        return ToolCall(name=name, id=call_id, error="arguments are not a JSON object")
    return ToolCall(name=name, arguments=value, id=call_id)


def checked_calls(
    calls: Sequence[ToolCall], tools: Iterable[dict[str, Any]] | None
) -> tuple[ToolCall, ...]:
    """The calls with `error` set where a call names no offered tool or misfits its schema."""
    if not calls:
        return ()
    import jsonschema

    schemas = {tool_name(t): t.get("function", {}).get("parameters") for t in tools or ()}
    checked = []
    for call in calls:
        if call.error is None:
            if call.name not in schemas:
                offered = ", ".join(schemas) or "none"
                call = call.model_copy(
                    update={"error": f"{call.name!r} is not an offered tool ({offered})"}
                )
            elif schemas[call.name]:
                # Compiled as every schema is: bounded patterns, references within it only.
                problem = compiled_schema(schemas[call.name])
                error = jsonschema.exceptions.best_match(problem.iter_errors(call.arguments))
                if error is not None:
                    where = "/".join(str(p) for p in error.absolute_path) or "arguments"
                    call = call.model_copy(
                        update={
                            "error": f"arguments do not fit the schema of {call.name!r}: "
                            f"{where}: {error.message}"
                        }
                    )
        checked.append(call)
    return tuple(checked)


def anthropic_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function schemas as Anthropic tools."""
    converted = []
    for tool in tools:
        function = tool.get("function", {})
        entry: dict[str, Any] = {
            "name": function.get("name", ""),
            "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
        }
        if function.get("description"):
            entry["description"] = function["description"]
        converted.append(entry)
    return converted


def anthropic_tool_choice(choice: str | dict[str, Any]) -> dict[str, Any]:
    """OpenAI's ``tool_choice`` as Anthropic's."""
    if isinstance(choice, dict):
        return {"type": "tool", "name": choice.get("function", {}).get("name", "")}
    return {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}.get(
        choice, {"type": "auto"}
    )


def anthropic_message(message: Message) -> dict[str, Any]:
    """One non-system message as the Messages API takes it (tool results are user turns)."""
    if message.role == "tool":
        block = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": message.content,
        }
        return {"role": "user", "content": [block]}
    if message.tool_calls:
        blocks: list[dict[str, Any]] = []
        if message.content:
            blocks.append({"type": "text", "text": message.content})
        blocks += [
            {
                "type": "tool_use",
                "id": call.id or f"call_{i}",
                "name": call.name,
                "input": call.arguments,
            }
            for i, call in enumerate(message.tool_calls)
        ]
        return {"role": message.role, "content": blocks}
    return {"role": message.role, "content": message.content}
