"""Anthropic's Messages API through the official ``anthropic`` SDK (the ``anthropic`` extra)."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from promptum.providers._base import ModelRequest
from promptum.providers._content_parts import anthropic_content, has_parts
from promptum.providers._errors import (
    MalformedResponseError,
)
from promptum.providers._sdk import (
    SdkProvider,
    sdk_errors,
)
from promptum.providers._tools import (
    anthropic_message,
    anthropic_tool_choice,
    anthropic_tools,
    parsed_call,
)
from promptum.values.case_result import Message
from promptum.values.completion import Completion, ToolCall

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic


DEFAULT_MAX_TOKENS = 1024
"""Anthropic requires an output cap; used when a request sets none."""
_TOOL = "respond"
_SAMPLING = ("temperature", "top_p")
"""The sampling parameters the Messages API takes besides `max_tokens` (it has no seed)."""


def _message(message: Message) -> dict[str, Any]:
    data = anthropic_message(message)
    if message.parts:
        data["content"] = anthropic_content(message)  # its files are read now, as it is sent
    return data


def _body(request: ModelRequest, name: str) -> dict[str, Any]:
    system = "\n\n".join(m.content for m in request.messages if m.role == "system")
    body: dict[str, Any] = {
        "model": name,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "messages": [_message(m) for m in request.messages if m.role != "system"],
    }
    if request.tools is not None:
        body["tools"] = anthropic_tools(request.tools)
    if request.tool_choice is not None:
        body["tool_choice"] = anthropic_tool_choice(request.tool_choice)
    if system:
        body["system"] = system
    for field in _SAMPLING:
        value = getattr(request, field)
        if value is not None:
            body[field] = value
    if request.response_schema is not None:
        # Anthropic's native structured output: a forced call of one tool whose input schema
        # is the response schema; the tool's input is the answer.
        body["tools"] = [
            {
                "name": _TOOL,
                "description": "Give the answer in the required structure.",
                "input_schema": request.response_schema,
            }
        ]
        body["tool_choice"] = {"type": "tool", "name": _TOOL}
    body.update(request.extra)
    return body


def _cache_count(usage: object, name: str) -> int | None:
    """A count of prompt-cache tokens of the answer's usage; None for none."""
    value = getattr(usage, name, None)
    return value if type(value) is int and value > 0 else None


def _input_tokens(usage: object) -> int | None:
    """Every input token: Anthropic counts those read from or written to the cache apart."""
    plain = getattr(usage, "input_tokens", None)
    if type(plain) is not int:
        return None
    read = _cache_count(usage, "cache_read_input_tokens") or 0
    return plain + read + (_cache_count(usage, "cache_creation_input_tokens") or 0)


class AnthropicProvider(SdkProvider["AsyncAnthropic"]):
    """Messages through the ``anthropic`` SDK, its own retries switched off."""

    sdk = "anthropic"

    def _new_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient, Omit

        http = DefaultAsyncHttpxClient(event_hooks=self._hooks)
        return AsyncAnthropic(**self._client_options("anthropic", Omit(), http))

    async def complete(self, request: ModelRequest) -> Completion:
        """Make one Messages call; raise a typed `ProviderError` on failure."""
        import anthropic

        client = self._sdk()
        if has_parts(request):  # built off the loop: it reads the parts' files
            body = await asyncio.to_thread(_body, request, self.route.name)
        else:
            body = _body(request, self.route.name)
        async with sdk_errors(anthropic, self):
            response: object = await client.messages.create(
                model=body.pop("model"),
                max_tokens=body.pop("max_tokens"),
                messages=body.pop("messages"),
                extra_body=body,
            )
        return self._completion(response, request)

    def _completion(self, response: Any, request: ModelRequest) -> Completion:
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list):
            preview = " ".join(str(response).split())[:80]
            raise MalformedResponseError(f"the answer is not a message: {preview!r}")
        if not blocks:
            raise MalformedResponseError("the answer has no content blocks")
        output: dict[str, Any] | None = None
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in blocks:
            kind = getattr(block, "type", None)
            if kind == "tool_use" and request.response_schema is None:
                calls.append(parsed_call(block.name, block.input, getattr(block, "id", None)))
            elif kind == "tool_use" and isinstance(getattr(block, "input", None), dict):
                output = block.input  # the forced `respond` call of structured output
            elif kind == "text":
                texts.append(block.text)
        usage = getattr(response, "usage", None)
        reported = getattr(response, "model", None)
        return Completion(
            text=json.dumps(output) if output is not None else "".join(texts),
            output=output,
            model=f"{self.endpoint}/{reported}" if reported else request.model,
            input_tokens=_input_tokens(usage),
            output_tokens=getattr(usage, "output_tokens", None),
            cache_read_tokens=_cache_count(usage, "cache_read_input_tokens"),
            cache_write_tokens=_cache_count(usage, "cache_creation_input_tokens"),
            tool_calls=tuple(calls),
        )
