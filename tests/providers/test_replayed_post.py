"""An OpenAI endpoint's later calls send the SDK's first request again: the same on the wire,
the same answers, the same errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from promptum.providers import ClientOptions, EndpointConfig, ModelClient, ModelRequest
from promptum.providers._replayed_post import ReplayedPost
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.support.completions import completed_in_turn
from tests.support.fault_server import TRANSIENT_FAULTS, FaultServer, Reply, fault_server

_NO_RETRY = {"cache": False, "max_retries": 0, "timeout_s": 1.0}


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def _client(server: FaultServer) -> ModelClient:
    endpoint = EndpointConfig(base_url=server.base_url, api_key="sk-test-abcdef123456")
    return ModelClient(ClientOptions(endpoints={"faulty": endpoint}, **_NO_RETRY))


def _request(system: str, temperature: float | None = None) -> ModelRequest:
    messages = (Message(role="system", content=system), Message(role="user", content="Hi"))
    return ModelRequest(model="faulty/m", messages=messages, temperature=temperature)


def _ask_in_turn(server: FaultServer, *requests: ModelRequest) -> list[Completion]:
    """Each request's completion, one after another on one client (the first by the SDK)."""
    return completed_in_turn(_client(server), *requests)


def test_a_later_call_sends_the_first_calls_url_and_headers_with_its_own_body(
    server: FaultServer,
) -> None:
    server.queue(Reply.echo(), Reply.echo(), Reply.echo())
    first, second, third = _ask_in_turn(
        server, _request("one"), _request("zwei ü", temperature=0.5), _request("three")
    )
    assert [completion.text for completion in (first, second, third)] == ["one", "zwei ü", "three"]
    sdk, replayed, _ = server.requests
    assert replayed.path == sdk.path
    assert replayed.headers.pop("content-length") != sdk.headers.pop("content-length")
    assert replayed.headers == sdk.headers
    assert replayed.headers["authorization"] == "Bearer sk-test-abcdef123456"
    assert replayed.body["messages"][0] == {"role": "system", "content": "zwei ü"}
    assert replayed.body["temperature"] == 0.5


_FAULTS = [
    *TRANSIENT_FAULTS,
    Reply.error(500, "boom"),
    Reply.error(401, "Incorrect API key provided: sk-test-abcdef123456"),
    Reply.error(400, "nope"),
]


@pytest.mark.parametrize("fault", _FAULTS, ids=lambda reply: f"{reply.kind}-{reply.status}")
def test_a_fault_on_a_later_call_is_the_error_the_sdk_made_of_it(
    server: FaultServer, fault: Reply
) -> None:
    server.queue(fault, Reply.ok(), fault)
    by_sdk, ok, replayed = _ask_in_turn(server, _request("a"), _request("b"), _request("c"))
    assert ok.ok, ok.error
    assert by_sdk.error is not None
    assert replayed.error == by_sdk.error
    assert "abcdef123456" not in replayed.error


def test_a_new_client_makes_its_first_call_through_the_sdk_again(
    server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    replayed: list[object] = []
    real = ReplayedPost.post

    async def counted(self: ReplayedPost, body: dict[str, Any]) -> object:
        replayed.append(body["messages"][0]["content"])
        return await real(self, body)

    monkeypatch.setattr(ReplayedPost, "post", counted)
    server.default = Reply.echo()
    client = _client(server)
    completed_in_turn(client, _request("one"), _request("two"))  # closes the client after
    completed_in_turn(client, _request("three"), _request("four"))
    assert replayed == ["two", "four"]
    assert len(server.requests) == 4
