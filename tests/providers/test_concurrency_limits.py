"""Which limits cap the run's concurrency, and which of them the summary explains."""

from __future__ import annotations

import pytest

from promptum.providers import ClientOptions, EndpointConfig, ModelClient
from promptum.providers._route import NO_LIMIT


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _client(**endpoints: EndpointConfig) -> ModelClient:
    return ModelClient(ClientOptions(cache=False, endpoints=endpoints))


def test_hosted_providers_and_named_endpoints_leave_it_to_the_run() -> None:
    client = _client(mine=EndpointConfig(base_url="http://127.0.0.1:9/v1"))
    for model in ("openai/gpt-4o", "mine/m"):
        assert client.max_concurrency(model) == NO_LIMIT
        assert client.limit_note(model, 16) is None


def test_a_limit_the_user_set_caps_and_is_explained() -> None:
    client = _client(openai=EndpointConfig(max_concurrency=8))
    assert client.max_concurrency("openai/gpt-4o") == 8
    assert client.limit_note("openai/gpt-4o", 16) == (
        "concurrency 16 requested; endpoint `openai` allows 8 calls at once (its max_concurrency)"
    )
    assert client.limit_note("openai/gpt-4o", 8) is None  # not below what was asked


def test_servers_known_to_serve_one_call_at_a_time_keep_their_limit_silently() -> None:
    client = _client()
    assert client.max_concurrency("ollama/llama3.2") == 1
    assert client.limit_note("ollama/llama3.2", 16) is None
    one = _client(ollama=EndpointConfig(max_concurrency=1)).limit_note("ollama/llama3.2", 4)
    assert one == (
        "concurrency 4 requested; endpoint `ollama` allows 1 call at once (its max_concurrency)"
    )
