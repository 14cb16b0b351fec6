"""Model calls from a chat log: JSON lines of an OpenAI chat completion's request and response.

A line is `{"request": {model, messages, tools?}, "response": {choices: [{message}]}}`; the
response may be wrapped as `{"status_code": 200, "body": {...}}`. Optional at the top:
`trace_id` and `span_id` (kept on the case), `id` (the record's own id, kept when no span id).
"""

from __future__ import annotations

from typing import Any

from promptum.errors import ConfigError
from promptum.importers.traces._call import Call, LeftOutError, Message, Where
from promptum.importers.traces._chat_messages import chat_message, chat_messages, openai_tools

SHAPE = (
    "each line is an OTLP export ({resourceSpans: [...]}) or a logged call "
    "({request: {model, messages}, response: {choices: [...]}})"
)


def log_call(record: dict[str, Any], where: Where) -> Call:
    """The call one chat-log line records; ConfigError when it is not of the shape read."""
    request, response = record.get("request"), record.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        keys = ", ".join(sorted(map(str, record))) or "none"
        raise ConfigError(f"{where}: unknown shape (keys: {keys}); {SHAPE}")
    body = response if "choices" in response else response.get("body")
    body = body if isinstance(body, dict) else {}
    answer = _answer(response, body)
    return Call(
        where=where,
        messages=tuple(chat_messages(request.get("messages"))),
        tools=openai_tools(request.get("tools") or ()),
        answer=str(answer.get("content", "")),
        answer_calls=tuple(answer.get("tool_calls", ())),
        model=str(request.get("model") or body.get("model") or ""),
        trace_id=str(record.get("trace_id", "")).lower(),
        span_id=str(record.get("span_id") or record.get("id") or "").lower(),
    )


def _answer(response: dict[str, Any], body: dict[str, Any]) -> Message:
    """The first choice's message: the answer given."""
    choices = body.get("choices")
    if response.get("error") or not choices or not isinstance(choices[0], dict):
        raise LeftOutError("the call failed (its response has an error or no choices)")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise LeftOutError("the response's first choice has no message")
    return chat_message({**message, "role": "assistant"})
