"""Cost: list prices, dated releases, local models, overrides and unknown models."""

from __future__ import annotations

import pytest

from promptum.providers import Price, price_for


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai/gpt-4o", Price(input=2.50, output=10.00)),
        ("openai/gpt-4o-2024-08-06", Price(input=2.50, output=10.00)),
        ("openai/gpt-4o-mini", Price(input=0.15, output=0.60)),
        ("openai/gpt-4o-mini-2024-07-18", Price(input=0.15, output=0.60)),
        ("openai/gpt-4", Price(input=30.0, output=60.0)),
        ("openrouter/openai/gpt-4", Price(input=30.0, output=60.0)),
        ("anthropic/claude-3-5-sonnet-20241022", Price(input=3.0, output=15.0)),
        ("local/smollm2", Price(input=0.0, output=0.0)),
        ("ollama/llama3.2", Price(input=0.0, output=0.0)),
    ],
)
def test_known_prices(model: str, expected: Price) -> None:
    assert price_for(model, {}) == expected


@pytest.mark.parametrize("model", ["openai/gpt-4oo", "acme/m1", "openrouter/acme/m1"])
def test_unknown_models_have_no_price(model: str) -> None:
    assert price_for(model, {}) is None


def test_an_override_wins_even_for_local_models() -> None:
    mine = Price(input=1.0, output=2.0)
    assert price_for("openai/gpt-4o", {"openai/gpt-4o": mine}) == mine
    assert price_for("local/smollm2", {"local/smollm2": mine}) == mine


def test_cost_is_per_million_tokens() -> None:
    price = Price(input=2.5, output=10.0)
    assert price.cost(1_000_000, 0) == 2.5
    assert price.cost(200, 100) == pytest.approx((200 * 2.5 + 100 * 10.0) / 1e6)
    assert price.cost(None, None) is None
    assert price.cost(10, None) == pytest.approx(25 / 1e6)


def test_prices_cannot_be_negative() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Price(input=-1.0, output=1.0)
