"""Tool calls of real models: the embedded SmolLM2 and llama.cpp's server via the OpenAI SDK.

SmolLM2-135M through llama-cpp-python's ChatML function-calling handler: asked for the
weather of a city with a `get_weather` tool it calls it with the city (auto or forced
choice); asked to send money with two tools it picks the wrong tool and rambles in the
arguments, so these tests ask only what the model can do.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptum.providers import ClientOptions, EndpointConfig
from promptum.values.completion import Completion
from tests.support.llama_server import llama_server
from tests.support.tools import ask_weather

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


def _ask(model: str, choice: Any, **endpoints: EndpointConfig) -> Completion:
    options = ClientOptions(cache=False, endpoints=endpoints, timeout_s=120)
    return ask_weather(model, choice, options)


@pytest.mark.parametrize(
    "choice", ["auto", {"type": "function", "function": {"name": "get_weather"}}]
)
def test_the_embedded_model_calls_the_tool(choice: Any) -> None:
    completion = _ask("local/smollm2", choice)
    assert completion.error is None, completion.error
    (call,) = completion.tool_calls
    assert (call.name, call.arguments, call.error) == ("get_weather", {"city": "Paris"}, None)


def test_the_embedded_model_refuses_required_with_advice() -> None:
    completion = _ask("local/smollm2", "required")
    assert completion.error is not None
    assert "cannot take tool_choice 'required'" in completion.error


def test_tool_calls_through_the_openai_sdk_against_llama_cpp_server() -> None:
    with llama_server(chat_format="chatml-function-calling") as base_url:
        server = EndpointConfig(base_url=base_url, max_concurrency=1)
        completion = _ask(
            "llamacpp/smollm2",
            {"type": "function", "function": {"name": "get_weather"}},
            llamacpp=server,
        )
    assert completion.error is None, completion.error
    (call,) = completion.tool_calls
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"})
    assert call.id  # the server's id, which a replayed tool result refers to
