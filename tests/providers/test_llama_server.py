"""The OpenAI provider, for real, against `python -m llama_cpp.server` on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from promptum.providers import ClientOptions, EndpointConfig, ModelClient, ModelRequest
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.support.llama_server import assert_answered_paris, llama_server

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


class Answer(BaseModel):
    city: str


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with llama_server() as url:
        yield url


def _client(base_url: str, **endpoint: Any) -> ModelClient:
    config = EndpointConfig(base_url=base_url, max_concurrency=1, **endpoint)
    return ModelClient(ClientOptions(cache=False, endpoints={"llamacpp": config}))


def _run(client: ModelClient, *requests: ModelRequest) -> list[Completion]:
    async def run() -> list[Completion]:
        try:
            return list(await asyncio.gather(*(client.complete(r) for r in requests)))
        finally:
            await client.aclose()

    return asyncio.run(run())


def _request(prompt: str, **fields: Any) -> ModelRequest:
    return ModelRequest(
        model="llamacpp/smollm2",
        messages=(Message(role="user", content=prompt),),
        temperature=0.0,
        max_tokens=fields.pop("max_tokens", 24),
        **fields,
    )


def test_a_real_server_answers_with_usage(base_url: str) -> None:
    (completion,) = _run(
        _client(base_url), _request("Name the capital city of France in one word.")
    )
    assert_answered_paris(completion, "llamacpp/smollm2")
    assert completion.cost_usd is None  # nobody priced this endpoint


def test_structured_output_falls_back_to_llamacpp_json_mode(base_url: str) -> None:
    # llama.cpp answers 500 to OpenAI's json_schema format; "auto" must find json_object.
    request = _request(
        "What is the capital of France?",
        response_schema=Answer.model_json_schema(),
        max_tokens=30,
    )
    first, second = _run(_client(base_url), request, request)
    assert first.ok, first.error
    assert Answer.model_validate(first.output).city.strip()
    assert second.output == first.output


def test_a_price_override_gives_a_cost(base_url: str) -> None:
    from promptum.providers import Price

    options = ClientOptions(
        cache=False,
        endpoints={"llamacpp": EndpointConfig(base_url=base_url)},
        pricing={"llamacpp/smollm2": Price(input=1_000_000.0, output=2_000_000.0)},
    )
    (completion,) = _run(ModelClient(options), _request("Say hi.", max_tokens=4))
    assert completion.input_tokens is not None
    assert completion.output_tokens is not None
    assert completion.cost_usd == completion.input_tokens * 1.0 + completion.output_tokens * 2.0


def test_calls_queue_behind_a_one_at_a_time_server(base_url: str) -> None:
    prompts = ["Say one.", "Say two.", "Say three."]
    results = _run(_client(base_url), *(_request(p, max_tokens=6) for p in prompts))
    assert all(r.ok for r in results), [r.error for r in results]
    assert all(r.attempts == 1 for r in results)
