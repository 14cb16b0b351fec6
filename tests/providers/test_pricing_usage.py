"""Cost that matches the bill: prompt-cache usage read from real OpenAI and Anthropic answers.

A small OpenAI- and Anthropic-compatible server on 127.0.0.1 answers with the usage each
provider reports for a prompt served partly from its cache; the SDKs read it as from the
providers, and the client prices it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.providers import (
    LIST_PRICES_TAKEN,
    ClientOptions,
    EndpointConfig,
    ModelClient,
    ModelRequest,
    Price,
    pricing_basis,
    pricing_line,
)
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.support.serving import send_json, serving

# What OpenAI says of a call whose 1,000 input tokens were 800 from its prompt cache.
OPENAI_USAGE = {
    "prompt_tokens": 1_000,
    "completion_tokens": 100,
    "total_tokens": 1_100,
    "prompt_tokens_details": {"cached_tokens": 800, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0},
}
# What Anthropic says: its input_tokens leave out the 700 read and the 100 written.
ANTHROPIC_USAGE = {
    "input_tokens": 200,
    "cache_read_input_tokens": 700,
    "cache_creation_input_tokens": 100,
    "output_tokens": 50,
}


class _UsageServer(ThreadingHTTPServer):
    """Answers chat completions (OpenAI) and messages (Anthropic) with the usage given."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.usage: dict[str, Any] = OPENAI_USAGE
        self.tool_call = False
        self.root_url = f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: _UsageServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.endswith("/messages"):
            answer = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [{"type": "text", "text": "hi"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": ANTHROPIC_USAGE,
            }
        else:
            answer = self._openai(body)
        send_json(self, answer)

    def _openai(self, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "hi"}
        if self.server.tool_call:  # an answer the SDK's typed objects read
            message["tool_calls"] = [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ]
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": self.server.usage,
        }


@pytest.fixture
def server() -> Iterator[_UsageServer]:
    server = _UsageServer()
    with serving(server):
        yield server


def _ask(options: ClientOptions, model: str, times: int = 1) -> list[Completion]:
    request = ModelRequest(model=model, messages=(Message(role="user", content="hello"),))

    async def run() -> list[Completion]:
        client = ModelClient(options)
        try:
            return [await client.complete(request) for _ in range(times)]
        finally:
            await client.aclose()

    return asyncio.run(run())


def _openai(server: _UsageServer, **config: Any) -> dict[str, EndpointConfig]:
    url = f"{server.root_url}/v1"
    return {"cachy": EndpointConfig(base_url=url, api_key="sk-test", **config)}


def test_openai_cached_input_is_read_and_priced_at_the_cached_rate(server: _UsageServer) -> None:
    price = Price(input=2.0, output=8.0, cached_input=0.5)
    options = ClientOptions(cache=False, endpoints=_openai(server), pricing={"cachy/m": price})
    [completion] = _ask(options, "cachy/m")
    assert completion.ok, completion.error
    assert (completion.input_tokens, completion.output_tokens) == (1_000, 100)
    assert (completion.cache_read_tokens, completion.cache_write_tokens) == (800, None)
    assert completion.cost_usd == pytest.approx((200 * 2.0 + 800 * 0.5 + 100 * 8.0) / 1e6)


def test_an_answer_read_through_the_sdks_types_keeps_its_cached_input(server: _UsageServer) -> None:
    server.tool_call = True
    endpoint = _openai(server, price=Price(input=2.0, output=8.0, cached_input=0.5))
    [completion] = _ask(ClientOptions(cache=False, endpoints=endpoint), "cachy/m")
    assert completion.ok, completion.error
    assert [call.name for call in completion.tool_calls] == ["f"]
    assert completion.cache_read_tokens == 800
    assert completion.cost_usd == pytest.approx((200 * 2.0 + 800 * 0.5 + 100 * 8.0) / 1e6)


def test_anthropic_cache_reads_and_writes_are_priced_at_their_rates(server: _UsageServer) -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    endpoints = {
        "claudy": EndpointConfig(kind="anthropic", base_url=server.root_url, api_key="sk-ant-test")
    }
    options = ClientOptions(cache=False, endpoints=endpoints, pricing={"claudy/m": price})
    [completion] = _ask(options, "claudy/m")
    assert completion.ok, completion.error
    # Every input token is counted, as OpenAI counts them; the cache's are named apart.
    assert (completion.input_tokens, completion.output_tokens) == (1_000, 50)
    assert (completion.cache_read_tokens, completion.cache_write_tokens) == (700, 100)
    expected = (200 * 3.0 + 700 * 0.3 + 100 * 3.75 + 50 * 15.0) / 1e6
    assert completion.cost_usd == pytest.approx(expected)


def test_no_cached_tokens_leaves_the_completion_as_it_was(server: _UsageServer) -> None:
    plain = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    server.usage = {**plain, "prompt_tokens_details": {"cached_tokens": 0}}
    endpoint = _openai(server, price=Price(input=1.0, output=1.0, cached_input=0.1))
    [completion] = _ask(ClientOptions(cache=False, endpoints=endpoint), "cachy/m")
    assert completion.cache_read_tokens is None  # OpenAI's 0 on every answer is none
    assert completion.cost_usd == pytest.approx(12 / 1e6)
    dumped = completion.model_dump()
    assert "cache_read_tokens" not in dumped
    assert "cache_write_tokens" not in dumped


def test_the_response_cache_keeps_the_prompt_cache_counts(
    server: _UsageServer, tmp_path: Path
) -> None:
    options = ClientOptions(
        cache_path=tmp_path / "cache.sqlite",
        endpoints=_openai(server, price=Price(input=2.0, output=8.0, cached_input=0.5)),
    )
    first, again = _ask(options, "cachy/m", times=2)
    assert (first.cached, again.cached) == (False, True)
    assert again.cache_read_tokens == first.cache_read_tokens == 800
    assert again.cost_usd == first.cost_usd


def test_the_summary_says_how_cost_was_priced(
    server: _UsageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROMPTUM_MINE_API_KEY", "sk-test")
    url = f"{server.root_url}/v1"
    (tmp_path / "suite.yaml").write_text(
        f"""\
models: [mine/cheap, mine/own, other/m]
endpoints:
  mine: {{base_url: "{url}", price: {{input: 2, output: 8, cached_input: 0.5}}}}
  other: {{base_url: "{url}"}}
pricing:
  mine/own: {{input: 1, output: 1}}
test_cases:
  - {{id: a, query: hello, checks: [{{type: contains, value: hi}}]}}
""",
        encoding="utf-8",
    )
    args = ["run", "suite.yaml", "--no-cache", "--no-store", "-o", "r.json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    said = "Cost: endpoint `price:` (mine/cheap); `pricing:` (mine/own); no price, not counted "
    assert said + "(other/m); prompt-cache tokens at their cached rates." in result.output
    run = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert run["config"]["pricing"]["list_prices"] == LIST_PRICES_TAKEN
    cheap = next(r for r in run["results"] if r["model"] == "mine/cheap")["completion"]
    assert cheap["cache_read_tokens"] == 800
    assert cheap["cost_usd"] == pytest.approx((200 * 2.0 + 800 * 0.5 + 100 * 8.0) / 1e6)


def test_list_prices_are_said_with_their_date() -> None:
    basis = pricing_basis(["openai/gpt-4o", "local/smollm2", "target:app"], {}, {})
    line = pricing_line(basis)
    assert line is not None
    assert line.startswith(f"Cost: list prices of {LIST_PRICES_TAKEN} (openai/gpt-4o); free")
    assert "as reported (target:app)" in line
    # A run with nothing priced records nothing, so its config stays as it was.
    assert pricing_basis(["local/smollm2", "acme/m"], {}, {}) == {}
    assert pricing_line({}) is None
