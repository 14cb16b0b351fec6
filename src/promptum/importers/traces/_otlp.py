"""Model calls from OpenTelemetry GenAI spans, as an OTLP JSON export holds them.

Read: the current conventions (semantic-conventions v1.37 to v1.41, and the standalone GenAI
conventions 0.x): `gen_ai.input.messages`, `gen_ai.output.messages`,
`gen_ai.system_instructions` and `gen_ai.tool.definitions` on the span, as JSON text or as
structured values; and the older `gen_ai.prompt` / `gen_ai.completion` (v1.26 to v1.27),
as span attributes or on the span events `gen_ai.content.prompt` / `gen_ai.content.completion`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

from promptum.importers.traces._call import Call, LeftOutError, Message, Where
from promptum.importers.traces._chat_messages import (
    arguments_of,
    chat_message,
    chat_messages,
    checked,
    openai_tools,
    suite_role,
)

_INFERENCE = frozenset({"chat", "text_completion", "generate_content", ""})
"""Operations that are one model call (`gen_ai.operation.name`); "": not said."""
_READ_PARTS = frozenset({"text", "tool_call", "tool_call_response", "reasoning"})
"""Message parts read; reasoning is the model's own and left out of a replayed message."""
NO_CONTENT = (
    "the span has no messages: its instrumentation did not capture content (turn it on, e.g. "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)"
)


def any_value(value: Any) -> Any:
    """An OTLP `AnyValue` (`{stringValue: ...}`, `{arrayValue: {values}}`...) as plain JSON."""
    if not isinstance(value, dict):
        return None
    if "arrayValue" in value:
        return [any_value(item) for item in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return attributes((value["kvlistValue"] or {}).get("values", []))
    if "intValue" in value:
        return int(value["intValue"])  # int64 is a string in OTLP JSON
    for kind in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if kind in value:
            return value[kind]
    return None


def attributes(pairs: Any) -> dict[str, Any]:
    """A list of `{key, value}` as a mapping."""
    if not isinstance(pairs, list):
        return {}
    return {
        str(pair.get("key")): any_value(pair.get("value"))
        for pair in pairs
        if isinstance(pair, dict)
    }


def spans(request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each span of an `ExportTraceServiceRequest`, with its path in the request."""
    for r, resource in enumerate(_items(request, "resourceSpans")):
        scopes = _items(resource, "scopeSpans") or _items(resource, "instrumentationLibrarySpans")
        for s, scope in enumerate(scopes):
            for n, span in enumerate(_items(scope, "spans")):
                yield f"resourceSpans[{r}].scopeSpans[{s}].spans[{n}]", span


def _items(parent: Any, key: str) -> list[Any]:
    items = parent.get(key) if isinstance(parent, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def span_call(span: dict[str, Any], where: Where) -> Call | None:
    """The model call a GenAI span records; None for a span that is not a model call.

    Raises LeftOutError for a model call that cannot be a case (no content captured, failed).
    """
    pairs = span.get("attributes")
    if not isinstance(pairs, list) or not any(
        str(pair.get("key", "")).startswith("gen_ai.") for pair in pairs if isinstance(pair, dict)
    ):
        return None
    found = attributes(pairs)
    if str(found.get("gen_ai.operation.name", "")) not in _INFERENCE:
        return None
    found.update(_event_attributes(span))
    messages = _input(found)
    if not messages:
        raise LeftOutError(NO_CONTENT)
    if (span.get("status") or {}).get("code") in (2, "STATUS_CODE_ERROR"):
        raise LeftOutError("the call failed (span status ERROR)")
    answer, calls = _output(found)
    return Call(
        where=where,
        messages=tuple(messages),
        tools=_tools(found.get("gen_ai.tool.definitions")),
        answer=answer,
        answer_calls=tuple(calls),
        model=str(found.get("gen_ai.request.model") or found.get("gen_ai.response.model") or ""),
        trace_id=str(span.get("traceId", "")).lower(),
        span_id=str(span.get("spanId", "")).lower(),
    )


def _event_attributes(span: dict[str, Any]) -> dict[str, Any]:
    """`gen_ai.prompt` and `gen_ai.completion` from the span events of v1.26-v1.27."""
    found: dict[str, Any] = {}
    for event in _items(span, "events"):
        if event.get("name") in ("gen_ai.content.prompt", "gen_ai.content.completion"):
            found.update(attributes(event.get("attributes")))
    return found


def _json(value: Any) -> Any:
    """A structured attribute, given as JSON text or as a structured value."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        raise LeftOutError("a gen_ai attribute holds text that is not JSON") from None


def _tools(value: Any) -> tuple[dict[str, Any], ...]:
    return _tools_text(value) if isinstance(value, str) else openai_tools(value or ())


# A product offers the same tools and instructions call after call: each text is read once.
@functools.lru_cache(maxsize=256)
def _tools_text(text: str) -> tuple[dict[str, Any], ...]:
    return openai_tools(_json(text) or ())


@functools.lru_cache(maxsize=256)
def _system_text(text: str) -> str:
    return _parts_text(_json(text))


def _input(found: dict[str, Any]) -> list[Message]:
    system = found.get("gen_ai.system_instructions")
    written: list[Message] = []
    if system:
        said = _system_text(system) if isinstance(system, str) else _parts_text(system)
        written.append(checked({"role": "system", "content": said}))
    current = _json(found.get("gen_ai.input.messages"))
    if current:
        return written + [message for item in _list(current) for message in _parts_message(item)]
    older = _json(found.get("gen_ai.prompt"))
    return written + chat_messages(older) if older else written


def _output(found: dict[str, Any]) -> tuple[str, list[Message]]:
    current = _json(found.get("gen_ai.output.messages"))
    if current:
        first = _list(current)[0]
        if not isinstance(first, dict):
            raise LeftOutError("an output message is not a JSON object")
        parts = _list(first.get("parts"))
        calls = [_part_call(part) for part in parts if part.get("type") == "tool_call"]
        return _parts_text(parts), calls
    older = _json(found.get("gen_ai.completion"))
    if not older:
        raise LeftOutError("the span has no answer (gen_ai.output.messages)")
    message = chat_message({"role": "assistant", **_list(older)[0]})
    return str(message.get("content", "")), list(message.get("tool_calls", []))


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise LeftOutError("a gen_ai messages attribute is not a list of messages")
    return value


def _parts_text(parts: Any) -> str:
    return _joined(_list(parts))


def _joined(parts: list[Any]) -> str:
    """The text parts' contents, a line apart."""
    return "\n".join(
        str(part.get("content", ""))
        for part in parts
        if isinstance(part, dict) and part.get("type") == "text"
    )


def _part_call(part: dict[str, Any]) -> Message:
    if not part.get("name"):
        raise LeftOutError("a tool_call part has no name")
    call: Message = {"name": str(part["name"])}
    if part.get("id"):
        call["id"] = str(part["id"])
    call["arguments"] = arguments_of(part.get("arguments") or {})
    return call


def _parts_message(message: Any) -> list[Message]:
    """One input message of the current conventions: tool responses become `tool` messages."""
    if not isinstance(message, dict):
        raise LeftOutError("an input message is not a JSON object")
    parts = _read_parts(message.get("parts"))
    answers = [
        checked(
            {"role": "tool", "tool_call_id": str(part.get("id", "")), "content": _response(part)}
        )
        for part in parts
        if part["type"] == "tool_call_response"
    ]
    role = message.get("role")
    said = [part for part in parts if part["type"] in ("text", "tool_call")]
    if role == "tool" or (answers and not said):
        return answers
    written: Message = {"role": suite_role(role), "content": _joined(said)}
    calls = [_part_call(part) for part in said if part["type"] == "tool_call"]
    if calls and role == "assistant":
        written["tool_calls"] = calls
    return [checked(written), *answers]


def _read_parts(parts: Any) -> list[dict[str, Any]]:
    """A message's parts; one that is not text or a tool call leaves the call out."""
    read = [part for part in _list(parts) if isinstance(part, dict)]
    for part in read:
        if part.get("type") not in _READ_PARTS:
            raise LeftOutError(
                f"a message holds a part of type {part.get('type')} (only text is imported)"
            )
    return read


def _response(part: dict[str, Any]) -> str:
    response = part.get("response", part.get("result", ""))
    return response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)
