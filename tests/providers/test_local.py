"""The embedded model, for real: SmolLM2-135M through `ModelClient` (no server, no mocks)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from promptum.providers import (
    DEFAULT_MODEL,
    ClientOptions,
    ModelClient,
    ModelRequest,
    local_model_path,
)
from promptum.values.run_result import Message
from tests.support.completions import completed_in_turn
from tests.support.llama_server import assert_answered_paris

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


class City(BaseModel):
    name: str
    country: str


def _request(prompt: str, **fields: Any) -> ModelRequest:
    fields.setdefault("max_tokens", 24)
    return ModelRequest(
        model=fields.pop("model", DEFAULT_MODEL),
        messages=(Message(role="user", content=prompt),),
        **fields,
    )


def test_the_default_model_is_the_embedded_smollm2() -> None:
    assert DEFAULT_MODEL == "local/smollm2"
    path = local_model_path("smollm2")
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000
    client = ModelClient(ClientOptions(cache=False))
    client.check_model(DEFAULT_MODEL)
    assert client.max_concurrency(DEFAULT_MODEL) == 1


def test_a_short_prompt_gets_a_real_answer_with_figures() -> None:
    (completion,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)),
        _request("Name the capital city of France in one word."),
    )
    assert_answered_paris(completion, "local/smollm2")
    assert completion.latency_ms is not None
    assert completion.latency_ms > 0
    assert completion.cost_usd == 0.0
    assert (completion.cached, completion.attempts) == (False, 1)


def test_max_tokens_caps_the_answer() -> None:
    (completion,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)),
        _request("Write a long story about a dragon.", max_tokens=5),
    )
    assert completion.output_tokens == 5


def test_temperature_zero_is_deterministic() -> None:
    request = _request("Tell me a fun fact about cats.", temperature=0.0, max_tokens=20)
    first, second = completed_in_turn(ModelClient(ClientOptions(cache=False)), request, request)
    assert first.ok
    assert second.ok
    assert first.text == second.text
    assert first.text.strip()


def test_temperature_zero_is_deterministic_across_processes() -> None:
    import subprocess
    import sys

    code = (
        "import asyncio;"
        "from promptum.providers import ClientOptions, ModelClient, ModelRequest;"
        "from promptum.values.run_result import Message;"
        "r = ModelRequest(model='local/smollm2', max_tokens=20,"
        " messages=(Message(role='user', content='Tell me a fun fact about cats.'),));"
        "print(asyncio.run(ModelClient(ClientOptions(cache=False)).complete(r)).text)"
    )
    texts = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        ).stdout
        for _ in range(2)
    }
    (text,) = texts
    (here,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)),
        _request("Tell me a fun fact about cats.", max_tokens=20),
    )
    assert text.strip() == here.text.strip()
    assert text.strip()


def test_structured_output_fills_a_pydantic_model() -> None:
    (completion,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)),
        _request(
            "What is the capital of France? Give the city and its country.",
            response_schema=City.model_json_schema(),
            max_tokens=40,
        ),
    )
    assert completion.ok, completion.error
    assert completion.output is not None
    city = City.model_validate(completion.output)
    assert city.name.strip()
    assert completion.text.lstrip().startswith("{")


def test_a_gguf_path_is_a_model_id(tmp_path: Path) -> None:
    model = f"local/{local_model_path('smollm2')}"
    (completion,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)), _request("Say hello.", model=model, max_tokens=8)
    )
    assert completion.ok, completion.error
    assert completion.model == model


def test_a_prompt_longer_than_the_context_is_an_error_result() -> None:
    (completion,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)), _request("word " * 5000, max_tokens=4)
    )
    assert completion.error is not None
    assert completion.error.startswith("request rejected: Requested tokens")
    assert "exceed context window" in completion.error
    hint = r"shorten the prompt or raise PROMPTUM_LOCAL_CTX \(now \d+\)$"
    assert re.search(hint, completion.error)
    assert completion.attempts == 1


def test_a_context_outgrown_with_tools_says_the_calls_go_in_it() -> None:
    # llama-cpp-python's function-calling handler adds each tool call to the prompt and asks
    # again: a model that keeps calling tools outgrows the context as a long prompt does.
    tool = {"type": "function", "function": {"name": "look_up", "parameters": {"type": "object"}}}
    request = _request("word " * 5000, max_tokens=4, tools=(tool,))
    (completion,) = completed_in_turn(ModelClient(ClientOptions(cache=False)), request)
    assert completion.error is not None
    assert "exceed context window" in completion.error
    assert "every call the model makes is added to the prompt" in completion.error
    hint = r"raise PROMPTUM_LOCAL_CTX \(now \d+\) or offer fewer tools$"
    assert re.search(hint, completion.error)


def test_an_unknown_parameter_is_an_error_result() -> None:
    (completion,) = completed_in_turn(
        ModelClient(ClientOptions(cache=False)), _request("Hi", extra={"no_such_knob": 1})
    )
    assert completion.error is not None
    assert "unsupported parameter for a local model" in completion.error


def test_a_second_run_is_served_from_the_cache(tmp_path: Path) -> None:
    options = ClientOptions(cache_path=tmp_path / "cache.sqlite")
    request = _request("Name the capital city of France in one word.")
    (fresh,) = completed_in_turn(ModelClient(options), request)
    (again,) = completed_in_turn(ModelClient(options), request)
    assert not fresh.cached
    assert again.cached
    assert again.text == fresh.text
    assert again.latency_ms == fresh.latency_ms  # the original figure, not the lookup's
    assert again.input_tokens == fresh.input_tokens


def test_bad_thread_setting_is_a_clear_error_before_any_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from promptum.errors import ProviderUnavailableError

    monkeypatch.setenv("PROMPTUM_LOCAL_THREADS", "many")
    with pytest.raises(ProviderUnavailableError, match="PROMPTUM_LOCAL_THREADS must be a positive"):
        ModelClient(ClientOptions(cache=False)).check_model(DEFAULT_MODEL)
