"""The one table of provider kinds: routing, the client and `promptum models` read it."""

from __future__ import annotations

import dataclasses

import pytest

from promptum.errors import ProviderUnavailableError
from promptum.providers import provider_statuses, resolve
from promptum.providers._kinds import PROVIDER_KINDS, provider_kind
from promptum.providers._route import NO_LIMIT


def test_the_optional_package_check_is_the_kinds_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    row = dataclasses.replace(PROVIDER_KINDS["openai"], extra=("no_such_sdk", "nosuch"))
    monkeypatch.setitem(PROVIDER_KINDS, "openai", row)
    with pytest.raises(ProviderUnavailableError) as raised:
        resolve("openai/gpt-4o", {}, {})
    assert str(raised.value) == (
        "model 'openai/gpt-4o' needs the no_such_sdk package: pip install 'promptum[nosuch]'"
    )


def test_promptum_models_lists_the_examples_of_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    row = dataclasses.replace(PROVIDER_KINDS["openai"], examples=("corp/x",))
    monkeypatch.setitem(PROVIDER_KINDS, "openai", row)
    prefixes = [status.example for status in provider_statuses({}, {})]
    assert prefixes[:3] == ["local/smollm2", "corp/x", "anthropic/claude-3-5-haiku-latest"]


@pytest.mark.embedded_model
def test_the_embedded_model_is_a_kind_whose_calls_cannot_be_interrupted() -> None:
    route = resolve("local/smollm2", {}, {})
    kind = provider_kind(route.kind)
    assert (kind.name, kind.interruptible, kind.per_model) == ("local", False, True)
    assert route.limit_key == "local/smollm2"
    assert route.max_concurrency == 1


def test_endpoint_routes_share_one_limit_per_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    first, second = resolve("openai/a", {}), resolve("openai/b", {})
    assert first.limit_key == second.limit_key == "openai"
    assert first.name == "a"
    assert first.max_concurrency == NO_LIMIT  # the run's concurrency decides
