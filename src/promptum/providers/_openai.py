"""Every OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp server...)."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from promptum.providers._base import SAMPLING_PARAMETERS, ModelRequest
from promptum.providers._content_parts import has_parts, openai_content
from promptum.providers._errors import (
    BadRequestError,
    MalformedResponseError,
    ProviderError,
    ServerError,
)
from promptum.providers._options import StructuredMode
from promptum.providers._replayed_post import ReplayedPost
from promptum.providers._sdk import (
    SdkProvider,
    sdk_errors,
)
from promptum.providers._tools import openai_message, parsed_call
from promptum.values.case_result import Message
from promptum.values.completion import Completion

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from promptum.providers._route import Route


def _with_instructions(messages: list[dict[str, Any]], schema: dict[str, Any]) -> None:
    instruction = (
        "Answer with only a JSON object that follows this JSON Schema, and nothing else:\n"
        + json.dumps(schema)
    )
    if messages and messages[0]["role"] == "system":
        messages[0] = {**messages[0], "content": messages[0]["content"] + "\n\n" + instruction}
    else:
        messages.insert(0, {"role": "system", "content": instruction})


def _message(message: Message) -> dict[str, Any]:
    data = openai_message(message)
    if message.parts:
        data["content"] = openai_content(message)  # its files are read now, as it is sent
    return data


def _body(request: ModelRequest, name: str, mode: StructuredMode) -> dict[str, Any]:
    messages = [_message(m) for m in request.messages]
    body: dict[str, Any] = {"model": name, "messages": messages}
    if request.tools is not None:
        body["tools"] = list(request.tools)
    if request.tool_choice is not None:
        body["tool_choice"] = request.tool_choice
    for field in SAMPLING_PARAMETERS:
        value = getattr(request, field)
        if value is not None:
            body[field] = value
    schema = request.response_schema
    if schema is not None:
        if mode in ("auto", "json_schema"):
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": schema},
            }
        elif mode == "json_object":
            # llama.cpp's extension: json_object plus a schema becomes a grammar.
            body["response_format"] = {"type": "json_object", "schema": schema}
        else:
            _with_instructions(messages, schema)
    body.update(request.extra)
    return body


def _rejects_json_schema(error: BadRequestError | ServerError) -> bool:
    """Whether a server refused the ``json_schema`` response format rather than failing."""
    if isinstance(error, BadRequestError):
        return True
    # llama.cpp's server answers 500 with a validation message naming the response_format.
    return any(word in error.message for word in ("response_format", "json_schema"))


_PlainAnswer = tuple[dict[str, Any], dict[str, Any], str | None]
"""An answer's first message, its usage ({} without one) and the model it names."""


def _plain_answer(data: object) -> _PlainAnswer | None:
    """The parts of a chat completion `_plain_completion` reads, if it has the usual shape.

    Only when every field read is what the SDK's typed `ChatCompletion` would hold as it
    is: a message of text (no tool calls), whole token counts, a model name. Any other
    answer (text of another content type, tool calls, odd fields) goes the SDK's way, so
    what comes of it, and every message about it, stays what it was.
    """
    if type(data) is not dict:
        return None
    choices = data.get("choices")
    if type(choices) is not list or not choices or type(choices[0]) is not dict:
        return None
    message = choices[0].get("message")
    if type(message) is not dict or message.get("tool_calls"):
        return None
    if not (_is(message.get("content"), str) and _is(message.get("refusal"), str)):
        return None
    usage = data.get("usage")
    if usage is None:
        usage = {}
    elif type(usage) is not dict or not (
        _is(usage.get("prompt_tokens"), int)
        and _is(usage.get("completion_tokens"), int)
        and _is(_cache_read(usage), int)
    ):
        return None
    reported = data.get("model")
    return (message, usage, reported) if _is(reported, str) else None


def _cache_read(usage: object) -> object:
    """The input tokens read from the prompt cache, as `usage` (a dict or the SDK's) says."""
    details = usage.get("prompt_tokens_details") if type(usage) is dict else None
    if details is None:
        details = getattr(usage, "prompt_tokens_details", None)
    if type(details) is dict:
        return details.get("cached_tokens")
    return getattr(details, "cached_tokens", None)


def _cache_count(value: object) -> int | None:
    """A count of prompt-cache tokens; None for none (OpenAI says 0 on every answer)."""
    return value if type(value) is int and value > 0 else None


def _is(value: object, kind: type) -> bool:
    """Whether `value` is None or exactly of type `kind` (not a subclass: bool is no count)."""
    return value is None or type(value) is kind


def _typed_answer(data: object, typed: type[Any]) -> object:
    """What the SDK makes of an answer it is told is a chat completion (`typed`).

    Its typed objects built without validation, as the SDK's `construct_type` builds them;
    text of a type other than JSON is parsed if it parses, as the SDK tries it.
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return data
    if isinstance(data, dict):
        return typed.construct(**data)
    if isinstance(data, list):
        return [typed.construct(**item) if isinstance(item, dict) else item for item in data]
    return data


class OpenAIProvider(SdkProvider["AsyncOpenAI"]):
    """Chat completions through the official ``openai`` SDK, its own retries switched off."""

    sdk = "openai"
    _replay: ReplayedPost
    """The request the SDK made for this client, which later calls send again."""

    def __init__(self, route: Route, timeout_s: float) -> None:
        super().__init__(route, timeout_s)
        self._mode: StructuredMode = self.config.structured_output

    def _new_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient, Omit

        # A new client is a new request to note: its first call goes through the SDK again.
        self._replay = ReplayedPost(
            DefaultAsyncHttpxClient, self._hooks, self.timeout_s, [self._key]
        )
        return AsyncOpenAI(**self._client_options("openai", Omit(), self._replay.http))

    async def complete(self, request: ModelRequest) -> Completion:
        """Make one chat-completion call; raise a typed `ProviderError` on failure."""
        if request.response_schema is not None and self._mode == "auto":
            try:
                completion = await self._call(
                    await self._built_body(request, "json_schema"), request
                )
            except (BadRequestError, ServerError) as exc:
                if not _rejects_json_schema(exc):
                    raise  # a passing outage: retried by the client, not a reason to switch
                # Servers without OpenAI's json_schema (llama.cpp answers 500) get JSON mode
                # with the schema; if that works, it is used for the rest of the run.
                completion = await self._call(
                    await self._built_body(request, "json_object"), request
                )
                self._mode = "json_object"
            else:
                self._mode = "json_schema"
            return completion
        return await self._call(await self._built_body(request, self._mode), request)

    async def _built_body(self, request: ModelRequest, mode: StructuredMode) -> dict[str, Any]:
        """The request's body; one with content parts is built off the loop (it reads files)."""
        if has_parts(request):
            return await asyncio.to_thread(_body, request, self.route.name, mode)
        return _body(request, self.route.name, mode)

    async def _call(self, body: dict[str, Any], request: ModelRequest) -> Completion:
        client = self._sdk()
        if self._replay.ready:  # the SDK has made this endpoint's request: send it again
            return self.completion_of(await self._replay.post(body), request)
        import openai

        async with sdk_errors(openai, self):
            # The SDK's documented low-level call, with the body as built: `create` would walk
            # every message through its typed-parameter transform first, which for bodies of
            # plain JSON changes nothing and cost a sixth of the SDK's CPU per call.
            # The answer as plain JSON (`object`): `_completion` reads the few fields it needs
            # from it, which costs a tenth of building the SDK's typed `ChatCompletion`.
            response: object = await client.post("/chat/completions", body=body, cast_to=object)
        return self.completion_of(response, request)

    def completion_of(self, response: object, request: ModelRequest) -> Completion:
        """The completion of a chat completion's JSON (a call's answer, or a batch's line)."""
        from openai.types.chat import ChatCompletion

        plain = _plain_answer(response)
        if plain is not None:
            return self._plain_completion(plain, request)
        response = _typed_answer(response, ChatCompletion)
        if not isinstance(response, ChatCompletion):
            preview = " ".join(str(response).split())[:80]
            raise MalformedResponseError(f"the answer is not a chat completion: {preview!r}")
        return self._completion(response, request)

    def _plain_completion(self, answer: _PlainAnswer, request: ModelRequest) -> Completion:
        """The completion of an answer of the usual shape, read from its JSON as it is."""
        message, usage, reported = answer
        text = message.get("content") or ""
        refusal = message.get("refusal")
        if refusal and not text:
            raise ProviderError(f"the model refused: {refusal}")
        return Completion(
            text=text,
            model=f"{self.endpoint}/{reported}" if reported else request.model,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            cache_read_tokens=_cache_count(_cache_read(usage)),
            tool_calls=(),  # set, as `_completion` sets it: what is set is what is dumped
        )

    def _completion(self, response: Any, request: ModelRequest) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            raise MalformedResponseError("the answer has an empty choice list")
        message = getattr(choices[0], "message", None)
        if message is None:
            raise MalformedResponseError("the answer's first choice has no message")
        text = message.content or ""
        calls = tuple(
            parsed_call(call.function.name, call.function.arguments, call.id)
            for call in getattr(message, "tool_calls", None) or ()
            if getattr(call, "function", None) is not None
        )
        refusal = getattr(message, "refusal", None)
        if refusal and not text:
            raise ProviderError(f"the model refused: {refusal}")
        usage = getattr(response, "usage", None)
        reported = getattr(response, "model", None)
        return Completion(
            text=text,
            model=f"{self.endpoint}/{reported}" if reported else request.model,
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            cache_read_tokens=_cache_count(_cache_read(usage)),
            tool_calls=calls,
        )
