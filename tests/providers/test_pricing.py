"""Cost: list prices, releases, local models, overrides, endpoint prices, unknown models."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from promptum.cli import main
from promptum.providers import (
    BATCH_DISCOUNT,
    LIST_PRICES_TAKEN,
    EndpointConfig,
    Price,
    price_for,
    priced,
)


@pytest.mark.parametrize(
    ("model", "rates"),
    [
        ("openai/gpt-4o", (2.50, 10.00, 1.25)),
        ("openai/gpt-4o-2024-08-06", (2.50, 10.00, 1.25)),
        ("openai/gpt-4o-2024-05-13", (5.00, 15.00, None)),  # a release priced apart
        ("openai/gpt-4o-mini-2024-07-18", (0.15, 0.60, 0.075)),
        ("openai/gpt-4.1", (2.00, 8.00, 0.50)),
        ("openai/gpt-5", (1.25, 10.00, 0.125)),
        ("openai/gpt-5-mini", (0.25, 2.00, 0.025)),
        ("openai/o3", (2.00, 8.00, 0.50)),
        ("openai/gpt-4-0613", (30.0, 60.0, None)),
        ("anthropic/claude-sonnet-4-5-20250929", (3.0, 15.0, 0.30)),
        ("anthropic/claude-haiku-4-5", (1.0, 5.0, 0.10)),
        ("anthropic/claude-opus-4-1-20250805", (15.0, 75.0, 1.50)),
        ("anthropic/claude-3-5-haiku-latest", (0.80, 4.00, 0.08)),
        ("openrouter/openai/gpt-4o", (2.50, 10.00, 1.25)),
        ("openrouter/anthropic/claude-sonnet-4", (3.0, 15.0, 0.30)),
        ("openrouter/meta-llama/llama-3.3-70b-instruct", (0.59, 0.79, 0.295)),
        ("openrouter/google/gemini-2.5-flash", (0.30, 2.50, 0.03)),
        ("openrouter/deepseek/deepseek-chat:free", (0.0, 0.0, None)),
        ("local/smollm2", (0.0, 0.0, None)),
        ("ollama/llama3.2", (0.0, 0.0, None)),
    ],
)
def test_known_prices(model: str, rates: tuple[float, float, float | None]) -> None:
    price = price_for(model, {})
    assert price is not None
    assert (price.input, price.output, price.cached_input) == rates


def test_anthropic_prices_cache_writes_and_long_inputs() -> None:
    price = price_for("anthropic/claude-sonnet-4-5", {})
    assert price is not None
    assert price.cache_write == 3.75
    assert price.long_context is not None
    assert (price.long_context.above, price.long_context.input) == (200_000, 6.0)


@pytest.mark.parametrize(
    "model",
    [
        "openai/gpt-4oo",
        "openai/gpt-4o-turbo",  # only a dated or -latest suffix names a release of gpt-4o
        "anthropic/claude-sonnet-4-9",
        "acme/m1",
        "openrouter/acme/m1",
    ],
)
def test_unknown_models_have_no_price(model: str) -> None:
    assert price_for(model, {}) is None


def test_an_override_wins_even_for_local_models() -> None:
    mine = Price(input=1.0, output=2.0)
    assert priced("openai/gpt-4o", {"openai/gpt-4o": mine}) == (mine, "pricing")
    assert price_for("local/smollm2", {"local/smollm2": mine}) == mine


def test_an_endpoint_prices_every_model_it_serves_below_pricing() -> None:
    whole = Price(input=0.2, output=0.6)
    endpoints = {"myvllm": EndpointConfig(base_url="http://127.0.0.1:1/v1", price=whole)}
    assert priced("myvllm/llama-3", {}, endpoints) == (whole, "endpoint")
    assert priced("myvllm/qwen", {}, endpoints) == (whole, "endpoint")
    own = Price(input=9.0, output=9.0)
    assert price_for("myvllm/qwen", {"myvllm/qwen": own}, endpoints) == own
    assert price_for("myvllm/qwen", {}, {"myvllm": EndpointConfig()}) is None
    # An endpoint named after a provider replaces its list prices.
    assert price_for("openai/gpt-4o", {}, {"openai": EndpointConfig(price=whole)}) == whole


def test_cost_is_per_million_tokens() -> None:
    price = Price(input=2.5, output=10.0)
    assert price.cost(1_000_000, 0) == 2.5
    assert price.cost(200, 100) == pytest.approx((200 * 2.5 + 100 * 10.0) / 1e6)
    assert price.cost(None, None) is None
    assert price.cost(10, None) == pytest.approx(25 / 1e6)


def test_prompt_cache_tokens_are_priced_at_their_rates() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    cost = price.cost(1_000, 50, cache_read_tokens=700, cache_write_tokens=100)
    assert cost == pytest.approx((200 * 3.0 + 700 * 0.3 + 100 * 3.75 + 50 * 15.0) / 1e6)
    # Without cache rates, cached tokens cost what any input token costs.
    plain = Price(input=3.0, output=15.0)
    assert plain.cost(1_000, 50, cache_read_tokens=700) == plain.cost(1_000, 50)


def test_a_long_input_prices_every_token_at_the_long_context_rates() -> None:
    price = Price(
        input=2.5,
        output=15.0,
        long_context={"above": 272_000, "input": 5.0, "output": 22.5},
    )
    assert price.cost(272_000, 1_000) == pytest.approx((272_000 * 2.5 + 1_000 * 15.0) / 1e6)
    assert price.cost(272_001, 1_000) == pytest.approx((272_001 * 5.0 + 1_000 * 22.5) / 1e6)


def test_a_batch_call_costs_half() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3)
    full = price.cost(1_000, 100, cache_read_tokens=400)
    assert full is not None
    assert BATCH_DISCOUNT == 0.5
    assert price.cost(1_000, 100, cache_read_tokens=400, batch=True) == pytest.approx(full / 2)
    assert price.cost(None, None, batch=True) is None


def test_prices_cannot_be_negative() -> None:
    with pytest.raises(ValidationError):
        Price(input=-1.0, output=1.0)
    with pytest.raises(ValidationError):
        Price(input=1.0, output=1.0, cached_input=-0.1)


def test_the_table_is_dated_and_every_entry_is_a_price() -> None:
    text = resources.files("promptum.providers").joinpath("list_prices.json").read_text("utf-8")
    table = json.loads(text)
    assert table["taken"] == LIST_PRICES_TAKEN
    assert "genai-prices" in table["source"]
    prices = table["prices"]
    assert len(prices) > 1_000
    for model, entry in prices.items():
        assert model.split("/", 1)[0] in ("openai", "anthropic", "openrouter"), model
        Price.model_validate(entry)


def _validate(tmp_path: Path, text: str) -> tuple[int, str]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(suite)], env={"OPENAI_API_KEY": "x"})
    return result.exit_code, result.output


_BOUNDED = """\
models: [mine/m1, openai/acme-ft, openai/gpt-4o-mini]
endpoints:
  mine: {base_url: "http://127.0.0.1:9/v1"}
test_cases:
  - id: a
    query: hi
    checks: [{type: max_cost_usd, value: 0.01}]
"""


def test_a_cost_bound_on_a_model_without_a_price_is_a_located_error(tmp_path: Path) -> None:
    code, output = _validate(tmp_path, _BOUNDED)
    assert code == 2, output
    lines = [line for line in output.splitlines() if "max_cost_usd" in line]
    assert len(lines) == 2  # gpt-4o-mini has a list price
    mine, acme = sorted(lines)
    assert mine.startswith(f"{tmp_path / 'suite.yaml'}:5: max_cost_usd bounds the cost of mine/m1")
    assert "(mine/m1: {input: <usd>, output: <usd>}), or `price:` on endpoint 'mine'" in mine
    assert "openai/acme-ft" in acme
    assert "`price:` on endpoint" not in acme  # one price for all of OpenAI would not fit


def test_a_pricing_entry_or_an_endpoint_price_answers_the_bound(tmp_path: Path) -> None:
    given = _BOUNDED.replace(
        'base_url: "http://127.0.0.1:9/v1"}',
        'base_url: "http://127.0.0.1:9/v1", price: {input: 0.2, output: 0.4}}',
    )
    given += "pricing:\n  openai/acme-ft: {input: 1, output: 2, cached_input: 0.5}\n"
    code, output = _validate(tmp_path, given)
    assert code == 0, output
    assert "max_cost_usd" not in output
