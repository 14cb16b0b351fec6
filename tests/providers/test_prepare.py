"""`ModelClient.prepare` builds a model's provider before the run's first call, once."""

from __future__ import annotations

from typing import Any

import pytest

import promptum.providers._client as client_module
from promptum.providers import ClientOptions, EndpointConfig, ModelClient
from tests.support.provider_builds import recorded_builds


def _client() -> ModelClient:
    endpoint = EndpointConfig(base_url="http://127.0.0.1:9/v1")  # never called here
    return ModelClient(ClientOptions(cache=False, endpoints={"box": endpoint}))


def test_a_prepared_provider_is_built_once_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    built = recorded_builds(monkeypatch)
    client = _client()
    client.prepare("box/m")
    client.prepare("box/m")
    assert built == ["box/m"]


def test_a_provider_that_cannot_be_built_is_left_for_its_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(route: Any, timeout_s: float) -> Any:
        raise RuntimeError("the SDK is broken")

    monkeypatch.setattr(client_module, "build_provider", broken)
    client = _client()
    client.prepare("box/m")  # no error here: the run's calls report it, as before
    client.prepare("nowhere/m")  # nor for a model no endpoint serves
    with pytest.raises(RuntimeError, match="the SDK is broken"):
        client._provider(client._route("box/m"))
