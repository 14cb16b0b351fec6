"""The providers' batch APIs: OpenAI's Batch API and Anthropic's Message Batches.

Each submits requests under ids of the caller's choosing, tells whether a batch has ended,
and reads each answer back as the provider's own call would have made it (`Completion`).
An answer the batch did not give (an error, expiry, cancellation) is read as None.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from promptum.providers._anthropic import AnthropicProvider
from promptum.providers._anthropic import _body as anthropic_body
from promptum.providers._base import ModelRequest
from promptum.providers._errors import ProviderError
from promptum.providers._openai import OpenAIProvider
from promptum.providers._openai import _body as openai_body
from promptum.providers._sdk import sdk_errors
from promptum.values.completion import Completion

_OPENAI_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
"""The states of an OpenAI batch that will not change any more."""


@dataclass(frozen=True, slots=True)
class BatchState:
    """Where a submitted batch stands: ended or not, and its counts in words."""

    ended: bool
    progress: str
    """e.g. ``1,200 of 2,000 done``, for the progress line."""
    files: tuple[str, ...] = ()
    """OpenAI: the files holding its answers and errors, once it has ended."""


class BatchApi(Protocol):
    """One provider's batch API, over the provider (its SDK client, key and URL)."""

    max_requests: int
    """The most requests one batch may hold."""
    max_bytes: int
    """The most bytes of requests one batch may hold (kept below the API's limit)."""

    def entry(self, custom_id: str, request: ModelRequest) -> dict[str, Any]:
        """One request as the batch holds it, under `custom_id`."""
        ...

    async def submit(self, entries: list[dict[str, Any]]) -> str:
        """Submit a batch of `entries`; its id."""
        ...

    async def state(self, batch_id: str) -> BatchState:
        """Where the batch stands now."""
        ...

    def answers(
        self, batch_id: str, state: BatchState, requests: Mapping[str, ModelRequest]
    ) -> AsyncIterator[tuple[str, Completion | None]]:
        """Each ended batch's answer by custom id: the completion, or None if not answered."""
        ...


def _count(number: int) -> str:
    return f"{number:,}"


class OpenAIBatches:
    """OpenAI's Batch API: a JSONL file of chat-completion calls, then one batch over it."""

    max_requests = 50_000
    max_bytes = 190_000_000  # the input file may hold 200 MB

    def __init__(self, provider: OpenAIProvider) -> None:
        self.provider = provider

    def entry(self, custom_id: str, request: ModelRequest) -> dict[str, Any]:
        """One line of the input file."""
        # The structured-output mode `auto` sends OpenAI's json_schema, as a live call first does.
        body = openai_body(request, self.provider.route.name, self.provider._mode)
        return {
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": body,
        }

    async def submit(self, entries: list[dict[str, Any]]) -> str:
        """Upload the entries as a file with purpose ``batch``, then create the batch."""
        import openai

        data = "".join(json.dumps(entry) + "\n" for entry in entries).encode()
        client = self.provider._sdk()
        async with sdk_errors(openai, self.provider):
            upload = await client.files.create(
                file=("promptum-batch.jsonl", data, "application/jsonl"), purpose="batch"
            )
            batch = await client.batches.create(
                input_file_id=upload.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
            )
        return batch.id

    async def state(self, batch_id: str) -> BatchState:
        """The batch's status; once ended, its output and error files."""
        import openai

        async with sdk_errors(openai, self.provider):
            batch = await self.provider._sdk().batches.retrieve(batch_id)
        counts = batch.request_counts
        done = (
            f"{_count(counts.completed + counts.failed)} of {_count(counts.total)} done"
            if (counts is not None)
            else batch.status
        )
        if batch.status not in _OPENAI_ENDED:
            return BatchState(False, done)
        files = tuple(f for f in (batch.output_file_id, batch.error_file_id) if f)
        return BatchState(True, f"{batch.status}, {done}", files)

    async def answers(
        self, batch_id: str, state: BatchState, requests: Mapping[str, ModelRequest]
    ) -> AsyncIterator[tuple[str, Completion | None]]:
        """Each line of the output and error files, matched to its request by custom id."""
        import openai

        for file_id in state.files:
            async with sdk_errors(openai, self.provider):
                content = await self.provider._sdk().files.content(file_id)
            for custom_id, body in _openai_lines(content.text):
                request = requests.get(custom_id)
                if request is not None:
                    read = partial(self.provider.completion_of, body, request)
                    yield custom_id, _answered(read, body)


def _openai_lines(text: str) -> Iterator[tuple[str, object | None]]:
    """(custom id, the answer's JSON body, or None for an error) of each line of a file."""
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict) or not isinstance(item.get("custom_id"), str):
            continue
        response = item.get("response")
        if isinstance(response, dict) and response.get("status_code") == 200:
            yield item["custom_id"], response.get("body") if item.get("error") is None else None
        else:
            yield item["custom_id"], None


def _answered(read: Callable[[], Completion], body: object | None) -> Completion | None:
    """The completion `read()` makes of an answer; None for none, or one it cannot read."""
    if body is None:
        return None
    try:
        return read()
    except ProviderError:  # a refusal, a malformed answer: asked again live
        return None


class AnthropicBatches:
    """Anthropic's Message Batches: requests as ``{custom_id, params}``, results as JSONL."""

    max_requests = 100_000
    max_bytes = 250_000_000  # a batch may hold 256 MB

    def __init__(self, provider: AnthropicProvider) -> None:
        self.provider = provider

    def entry(self, custom_id: str, request: ModelRequest) -> dict[str, Any]:
        """One request of the batch: the Messages call's parameters."""
        return {"custom_id": custom_id, "params": anthropic_body(request, self.provider.route.name)}

    async def submit(self, entries: list[dict[str, Any]]) -> str:
        """Create the Message Batch."""
        import anthropic

        async with sdk_errors(anthropic, self.provider):
            batch = await self.provider._sdk().messages.batches.create(requests=entries)  # type: ignore[arg-type]
        return batch.id

    async def state(self, batch_id: str) -> BatchState:
        """The batch's processing status and counts."""
        import anthropic

        async with sdk_errors(anthropic, self.provider):
            batch = await self.provider._sdk().messages.batches.retrieve(batch_id)
        counts = batch.request_counts
        finished = counts.succeeded + counts.errored + counts.canceled + counts.expired
        done = f"{_count(finished)} of {_count(finished + counts.processing)} done"
        return BatchState(batch.processing_status == "ended", done)

    async def answers(
        self, batch_id: str, state: BatchState, requests: Mapping[str, ModelRequest]
    ) -> AsyncIterator[tuple[str, Completion | None]]:
        """Each result of the batch's ``results_url``, matched to its request by custom id."""
        import anthropic

        async with sdk_errors(anthropic, self.provider):
            results = await self.provider._sdk().messages.batches.results(batch_id)
            async for item in results:
                request = requests.get(item.custom_id)
                if request is None:
                    continue
                result = item.result
                message = result.message if result.type == "succeeded" else None
                read = partial(self.provider._completion, message, request)
                yield item.custom_id, _answered(read, message)


def batch_api(provider: object) -> BatchApi | None:
    """The batch API of a provider, if it is one of OpenAI's or Anthropic's protocol."""
    if isinstance(provider, OpenAIProvider):
        return OpenAIBatches(provider)
    if isinstance(provider, AnthropicProvider):
        return AnthropicBatches(provider)
    return None
