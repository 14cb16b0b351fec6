"""The OpenAI and Anthropic providers against the fault server: every fault ends cleanly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from promptum.providers import ClientOptions, EndpointConfig, ModelClient, ModelRequest
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.support.fault_server import TRANSIENT_FAULTS, FaultServer, Reply, fault_server

FAST = {"backoff_base_s": 0.001, "backoff_max_s": 0.05, "cache": False}


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def _client(server: FaultServer, **options: Any) -> ModelClient:
    endpoints = {
        "faulty": EndpointConfig(base_url=server.base_url, max_concurrency=4),
        "faultyclaude": EndpointConfig(
            kind="anthropic", base_url=server.root_url, api_key="sk-ant-test"
        ),
    }
    return ModelClient(ClientOptions(endpoints=endpoints, **{**FAST, **options}))


def _ask(client: ModelClient, model: str = "faulty/m", **fields: Any) -> Completion:
    request = ModelRequest(
        model=model, messages=(Message(role="user", content="Say hi"),), **fields
    )

    async def run() -> Completion:
        try:
            return await client.complete(request)
        finally:
            await client.aclose()

    return asyncio.run(run())


def test_a_normal_answer_has_text_tokens_latency_and_no_error(server: FaultServer) -> None:
    server.queue(Reply.ok("Hello there"))
    completion = _ask(_client(server))
    assert completion.ok, completion.error
    assert completion.text == "Hello there"
    assert (completion.input_tokens, completion.output_tokens) == (2, 2)
    assert completion.latency_ms is not None
    assert completion.latency_ms > 0
    assert completion.attempts == 1
    assert completion.cost_usd is None  # no price known for a named endpoint
    assert completion.model == "faulty/m"


@pytest.mark.parametrize(
    "fault", TRANSIENT_FAULTS, ids=lambda r: r.kind if r.kind != "status" else str(r.status)
)
def test_each_transient_fault_is_retried_until_an_answer(server: FaultServer, fault: Reply) -> None:
    server.queue(fault, fault, Reply.ok("recovered"))
    # Timeouts leave room for a loaded machine: only the hang should ever reach them.
    completion = _ask(_client(server, timeout_s=2.0))
    assert completion.ok, completion.error
    assert completion.text == "recovered"
    assert completion.attempts == 3
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Reply.rate_limited(retry_after="0"), "rate limited: HTTP 429: Rate limit reached"),
        (Reply.error(500, "boom"), "server error: HTTP 500: boom"),
        (Reply.drop(), "connection failed: connection to http://127.0.0.1"),
        (Reply.truncated(), "connection failed"),
        (Reply.not_json(), "malformed answer: the answer is not a chat completion: '<html>"),
        (Reply.bad_json(), "malformed answer: the answer is not valid JSON"),
        (Reply.empty_choices(), "malformed answer: the answer has an empty choice list"),
        (Reply.hang(5), "timed out: no answer within 1 s"),
    ],
    ids=["429", "500", "drop", "truncated", "not_json", "bad_json", "empty", "hang"],
)
def test_a_fault_that_persists_ends_as_an_error_result(
    server: FaultServer, fault: Reply, expected: str
) -> None:
    server.default = fault
    completion = _ask(_client(server, max_retries=2, timeout_s=1.0))
    assert completion.error is not None
    assert completion.error.startswith(expected), completion.error
    assert completion.error.endswith("(gave up after 3 attempts)")
    assert "\n" not in completion.error
    assert completion.attempts == 3
    assert completion.text == ""


@pytest.mark.parametrize(
    ("status", "label"),
    [
        (401, "authentication failed"),
        (403, "authentication failed"),
        (400, "request rejected"),
        (404, "request rejected"),
        (422, "request rejected"),
    ],
)
def test_client_errors_fail_fast_with_the_providers_message(
    server: FaultServer, status: int, label: str
) -> None:
    server.default = Reply.error(status, f"nope {status}")
    completion = _ask(_client(server))
    assert completion.error == f"{label}: HTTP {status}: nope {status}"
    assert completion.attempts == 1
    assert len(server.requests) == 1


def test_a_key_echoed_in_an_error_message_is_masked(server: FaultServer) -> None:
    server.default = Reply.error(401, "Incorrect API key provided: sk-proj-abcdef123456")
    completion = _ask(_client(server))
    assert completion.error is not None
    assert "abcdef123456" not in completion.error
    assert "sk-***" in completion.error


def test_the_configured_key_is_sent_and_never_in_the_error(
    server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "verysecretvalue-0123456789"
    monkeypatch.setenv("FAULTY_KEY", secret)
    server.default = Reply.error(401, f"bad key {secret}")
    endpoints = {"faulty": EndpointConfig(base_url=server.base_url, api_key_env="FAULTY_KEY")}
    completion = _ask(ModelClient(ClientOptions(endpoints=endpoints, **FAST)))
    assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
    assert completion.error is not None
    assert secret not in completion.error


def test_retry_after_is_read_from_the_429(server: FaultServer) -> None:
    # The wait itself is `backoff_delay`'s job (tested in test_retry); here the header must
    # reach it: a long Retry-After is capped by backoff_max_s, so the retry still happens.
    server.queue(Reply.rate_limited(retry_after="120"), Reply.ok("after the wait"))
    completion = _ask(_client(server, backoff_max_s=0.01))
    assert completion.text == "after the wait"
    assert completion.attempts == 2


def test_the_retry_budget_is_shared_by_every_call_of_a_client(server: FaultServer) -> None:
    server.default = Reply.error(503)
    client = _client(server, max_retries=5, retry_budget=3)
    request = ModelRequest(model="faulty/m", messages=(Message(role="user", content="x"),))

    async def run() -> list[Completion]:
        try:
            return [await client.complete(request) for _ in range(3)]
        finally:
            await client.aclose()

    first, second, third = asyncio.run(run())
    assert first.attempts == 4  # 1 + the whole budget of 3
    assert first.error is not None
    assert "retry budget of 3 is spent" in first.error
    assert (second.attempts, third.attempts) == (1, 1)
    assert client.retries_used == 3
    assert len(server.requests) == 6


def test_no_retries_when_max_retries_is_zero(server: FaultServer) -> None:
    server.default = Reply.error(500)
    completion = _ask(_client(server, max_retries=0))
    assert completion.attempts == 1
    assert completion.error == "server error: HTTP 500: scripted 500"


def test_concurrent_calls_with_faults_all_finish(server: FaultServer) -> None:
    server.queue(*[Reply.error(503), Reply.drop(), Reply.rate_limited()] * 4)
    # Which call draws which fault depends on scheduling: allow one call to draw them all.
    client = _client(server, max_retries=12)

    async def run() -> list[Completion]:
        try:
            requests = [
                ModelRequest(model="faulty/m", messages=(Message(role="user", content=str(i)),))
                for i in range(12)
            ]
            return await asyncio.gather(*(client.complete(r) for r in requests))
        finally:
            await client.aclose()

    results = asyncio.run(run())
    assert all(r.ok for r in results), [r.error for r in results]
    assert sum(r.attempts for r in results) == 24


def test_structured_output_falls_back_to_json_mode_once(server: FaultServer) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    server.queue(Reply.error(500, "json_schema not supported"))
    server.default = Reply.ok('{"n": 4}')
    client = _client(server)
    request = ModelRequest(
        model="faulty/m", messages=(Message(role="user", content="2+2"),), response_schema=schema
    )

    async def run() -> list[Completion]:
        try:
            return [await client.complete(request), await client.complete(request)]
        finally:
            await client.aclose()

    first, second = asyncio.run(run())
    assert first.output == {"n": 4}
    assert second.output == {"n": 4}
    formats = [r.body["response_format"]["type"] for r in server.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert server.requests[1].body["response_format"]["schema"] == schema


def test_prompt_mode_sends_the_schema_as_instructions(server: FaultServer) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    server.default = Reply.ok('Sure! ```json\n{"n": 4}\n```')
    endpoints = {"plain": EndpointConfig(base_url=server.base_url, structured_output="prompt")}
    completion = _ask(
        ModelClient(ClientOptions(endpoints=endpoints, **FAST)),
        model="plain/m",
        response_schema=schema,
    )
    assert completion.output == {"n": 4}
    sent = server.requests[0].body
    assert "response_format" not in sent
    assert sent["messages"][0]["role"] == "system"
    assert json.dumps(schema) in sent["messages"][0]["content"]


def test_an_answer_that_misses_the_schema_is_a_misfit_with_the_reason(
    server: FaultServer,
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    server.default = Reply.ok('{"n": "four"}')
    completion = _ask(_client(server), response_schema=schema)
    assert completion.output is None
    assert completion.text == '{"n": "four"}'
    assert completion.error is None
    assert completion.output_error == (
        "the response does not fit the schema at $.n: 'four' is not of type 'integer'"
    )
    assert completion.attempts == 1


def test_parameters_and_extra_reach_the_server(server: FaultServer) -> None:
    _ask(_client(server), temperature=0.0, max_tokens=7, seed=3, extra={"top_p": 0.5})
    body = server.requests[0].body
    assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == (
        "m",
        0.0,
        7,
        3,
    )
    assert body["top_p"] == 0.5
    assert body["messages"] == [{"role": "user", "content": "Say hi"}]


def test_anthropic_answer_and_usage(server: FaultServer) -> None:
    server.queue(Reply.ok("Bonjour"))
    completion = _ask(_client(server), model="faultyclaude/claude-x", max_tokens=20)
    assert completion.ok, completion.error
    assert completion.text == "Bonjour"
    assert (completion.input_tokens, completion.output_tokens) == (2, 1)
    request = server.requests[0]
    assert request.path == "/v1/messages"
    sent_key = request.headers.get("x-api-key") or request.headers["authorization"]
    assert sent_key.endswith("sk-ant-test")
    assert request.body["max_tokens"] == 20


def test_anthropic_system_messages_and_structured_output_use_a_forced_tool(
    server: FaultServer,
) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    server.queue(Reply.ok('{"city": "Paris"}'))
    client = _client(server)
    request = ModelRequest(
        model="faultyclaude/claude-x",
        messages=(
            Message(role="system", content="Be brief."),
            Message(role="user", content="Capital of France?"),
        ),
        response_schema=schema,
    )

    async def run() -> Completion:
        try:
            return await client.complete(request)
        finally:
            await client.aclose()

    completion = asyncio.run(run())
    assert completion.output == {"city": "Paris"}
    body = server.requests[0].body
    assert body["system"] == "Be brief."
    assert body["messages"] == [{"role": "user", "content": "Capital of France?"}]
    assert body["tools"][0]["input_schema"] == schema
    assert body["tool_choice"] == {"type": "tool", "name": "respond"}


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Reply.rate_limited(retry_after="0"), "rate limited: HTTP 429"),
        (Reply.error(529, "Overloaded"), "server error: HTTP 529: Overloaded"),
        (Reply.drop(), "connection failed"),
        (Reply.not_json(), "malformed answer"),
        (Reply.empty_choices(), "malformed answer: the answer has no content blocks"),
        (Reply.hang(5), "timed out"),
    ],
    ids=["429", "529", "drop", "not_json", "empty", "hang"],
)
def test_anthropic_faults_are_retried_then_reported(
    server: FaultServer, fault: Reply, expected: str
) -> None:
    server.default = fault
    completion = _ask(_client(server, max_retries=1, timeout_s=1.0), model="faultyclaude/c")
    assert completion.error is not None
    assert completion.error.startswith(expected), completion.error
    assert completion.attempts == 2


def test_anthropic_auth_error_fails_fast(server: FaultServer) -> None:
    server.default = Reply.error(401, "invalid x-api-key")
    completion = _ask(_client(server), model="faultyclaude/c")
    assert completion.error == "authentication failed: HTTP 401: invalid x-api-key"
    assert completion.attempts == 1


def test_an_unusable_model_is_an_error_result_without_a_call(server: FaultServer) -> None:
    completion = _ask(_client(server), model="nosuchprovider/m")
    assert completion.error is not None
    assert completion.error.startswith("unknown provider 'nosuchprovider'")
    assert completion.attempts == 0
    assert server.requests == []


def test_a_passing_500_is_retried_not_taken_for_a_missing_json_schema(
    server: FaultServer,
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    server.queue(Reply.error(500, "upstream overloaded"))
    server.default = Reply.ok('{"n": 4}')
    completion = _ask(_client(server), response_schema=schema)
    assert completion.output == {"n": 4}
    assert completion.attempts == 2
    formats = [r.body["response_format"]["type"] for r in server.requests]
    assert formats == ["json_schema", "json_schema"]
