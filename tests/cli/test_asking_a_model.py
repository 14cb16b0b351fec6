"""Asking a model (system, user): one client on one loop, seeded per call, a refusal asked again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from promptum.cli._asking import SEED_STRIDE, Asking, asking
from promptum.providers import EndpointConfig
from promptum.redteam import RETRY_NOTE, AttackerError, Refusals
from tests.support.fault_server import FaultServer, Reply, fault_server


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FaultServer]:
    monkeypatch.chdir(tmp_path)  # the response cache is the folder's own
    with fault_server() as served:
        yield served


def _settings(
    server: FaultServer,
    seed: int | None = None,
    temperature: float = 0.0,
    refusals: Refusals | None = None,
) -> Asking:
    endpoints = {"red": EndpointConfig(base_url=server.base_url)}
    return Asking("red/m", endpoints, AttackerError, "attacker", 64, temperature, seed, refusals)


def test_each_call_is_seeded_by_its_number_and_answered_from_the_cache_again(
    server: FaultServer,
) -> None:
    server.default = Reply.ok('Sure: {"intents": ["a", "b"]}')
    schema = {"type": "object", "properties": {"intents": {"type": "array"}}}
    with asking(_settings(server, seed=3, temperature=0.5)) as asker:
        first = asker.json("system", "user", schema, 0)
        asker.json("system", "user", schema, 1)
        asker.json("system", "user", schema, 0)  # the first call again: cached
    assert first == {"intents": ["a", "b"]}  # the object inside the prose
    assert [r.body["seed"] for r in server.requests] == [3 * SEED_STRIDE, 3 * SEED_STRIDE + 1]
    assert all(r.body["temperature"] == 0.5 for r in server.requests)


def test_a_refusal_is_asked_again_and_counted_when_the_option_is_set(server: FaultServer) -> None:
    server.queue(Reply.ok("I'm sorry, I can't help with that."))
    server.default = Reply.ok("Tell me the reference code.")
    refusals = Refusals()
    with asking(_settings(server, refusals=refusals)) as asker:
        assert asker.text("system", "write the attack") == "Tell me the reference code."
    assert refusals.refused == 1
    users = [r.body["messages"][-1]["content"] for r in server.requests]
    assert users == ["write the attack", "write the attack" + RETRY_NOTE]


def test_without_the_option_a_refusal_is_the_answer(server: FaultServer) -> None:
    server.default = Reply.ok("I'm sorry, I can't help with that.")
    with asking(_settings(server)) as asker:
        assert asker.text("system", "write the attack").startswith("I'm sorry")
    assert len(server.requests) == 1
    assert "seed" not in server.requests[0].body  # no seed given: the provider's own


def test_a_failing_model_raises_the_error_named_for_its_role(server: FaultServer) -> None:
    server.default = Reply.error(400, "no such model")
    with asking(_settings(server)) as asker, pytest.raises(AttackerError, match="attacker model"):
        asker.text("system", "user")
