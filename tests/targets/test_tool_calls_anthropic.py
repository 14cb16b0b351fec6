"""Tool calls through the Anthropic SDK: tools and tool_choice converted, tool_use read back."""

from __future__ import annotations

from typing import Any

from promptum.providers import ClientOptions, EndpointConfig
from promptum.values.completion import Completion
from tests.support.fault_server import FaultServer, Reply, fault_server
from tests.support.tools import WEATHER, ask_weather


def _ask(server: FaultServer, choice: Any) -> Completion:
    endpoint = EndpointConfig(kind="anthropic", base_url=server.root_url)
    options = ClientOptions(cache=False, endpoints={"claude": endpoint})
    return ask_weather("claude/sonnet", choice, options)


def test_a_forced_tool_call_round_trips_through_anthropic() -> None:
    with fault_server() as server:
        server.queue(Reply.ok('{"city": "Paris"}'))
        completion = _ask(server, {"type": "function", "function": {"name": "get_weather"}})
        body = server.requests[0].body
    assert completion.error is None, completion.error
    (call,) = completion.tool_calls
    assert (call.name, call.arguments, call.error) == ("get_weather", {"city": "Paris"}, None)
    # OpenAI's function schema, converted to Anthropic's form.
    (tool,) = body["tools"]
    assert tool["name"] == "get_weather"
    assert tool["input_schema"] == WEATHER["function"]["parameters"]
    assert body["tool_choice"] == {"type": "tool", "name": "get_weather"}


def test_arguments_that_do_not_fit_the_tool_are_marked() -> None:
    with fault_server() as server:
        server.queue(Reply.ok('{"town": "Paris"}'))
        completion = _ask(server, {"type": "function", "function": {"name": "get_weather"}})
    (call,) = completion.tool_calls
    assert call.error is not None
    assert "city" in call.error
