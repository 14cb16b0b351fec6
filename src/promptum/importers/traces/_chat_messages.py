"""OpenAI-format chat messages (a chat log, the older `gen_ai.prompt`) as a suite writes them."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from promptum.importers.traces._call import LeftOutError, Message

_TEXT_PARTS = ("text", "input_text", "output_text")
_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}


def arguments_of(value: Any) -> dict[str, Any]:
    """A tool call's arguments as a mapping: OpenAI sends JSON text, the conventions an object."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            raise LeftOutError("a tool call's arguments are not JSON") from None
    if not isinstance(value, dict):
        raise LeftOutError("a tool call's arguments are not a JSON object")
    return value


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or a list of text parts.

    A message holding an image, audio or a file is left out, not cut down to its text: the
    case would ask about what the model is no longer shown.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise LeftOutError(f"a message's content is {type(content).__name__}, not text or parts")
    texts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in _TEXT_PARTS:
            raise LeftOutError(f"a message holds a part of type {kind} (only text is imported)")
        texts.append(str(part.get("text", part.get("content", ""))))
    return "\n".join(texts)


def openai_call(call: Any) -> Message:
    """`{id, type: function, function: {name, arguments}}` as a suite's `{id, name, arguments}`."""
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not function.get("name"):
        raise LeftOutError("a tool call has no function name")
    written: Message = {"name": str(function["name"])}
    if call.get("id"):
        written["id"] = str(call["id"])
    written["arguments"] = arguments_of(function.get("arguments"))
    return written


def suite_role(role: Any) -> str:
    """A message's role as a suite writes it (`developer` is OpenAI's newer `system`)."""
    if role not in _ROLES:
        raise LeftOutError(f"a message has role {role!r}; imported: {', '.join(_ROLES)}, tool")
    return _ROLES[role]


def chat_message(message: Any) -> Message:
    """One OpenAI chat message as a suite's message."""
    if not isinstance(message, dict):
        raise LeftOutError("a message is not a JSON object")
    role = message.get("role")
    text = text_of(message.get("content"))
    if role == "tool":
        return checked(
            {"role": "tool", "tool_call_id": str(message.get("tool_call_id", "")), "content": text}
        )
    written: Message = {"role": suite_role(role), "content": text}
    calls = message.get("tool_calls") if role == "assistant" else None
    if calls:
        written["tool_calls"] = [openai_call(call) for call in calls]
    return checked(written)


def checked(message: Message) -> Message:
    """The message, if it says something: text, or (from the assistant) tool calls."""
    if not message.get("content") and not message.get("tool_calls"):
        raise LeftOutError(f"a {message['role']} message has no text (only text is imported)")
    return message


def chat_messages(messages: Any) -> list[Message]:
    """A request's `messages` list as a suite's messages."""
    if not isinstance(messages, list) or not messages:
        raise LeftOutError("the request has no messages")
    return [chat_message(message) for message in messages]


def openai_tools(tools: Iterable[Any]) -> tuple[dict[str, Any], ...]:
    """Tool definitions as a suite's `tools:`; the conventions' flat form is nested as OpenAI's."""
    written = []
    for tool in tools:
        if not isinstance(tool, dict):
            raise LeftOutError("a tool definition is not a JSON object")
        if tool.get("type", "function") != "function":
            raise LeftOutError(
                f"a tool of type {tool.get('type')!r} is offered; imported: functions"
            )
        function = tool.get("function", tool)
        if not isinstance(function, dict) or not function.get("name"):
            raise LeftOutError("a tool definition has no name")
        spec = {
            key: function[key] for key in ("name", "description", "parameters") if key in function
        }
        written.append({"type": "function", "function": spec})
    return tuple(written)
