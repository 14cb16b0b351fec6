"""Prices for cost figures: a small built-in table, overridable per model id.

Prices change; the table holds the vendors' list prices (USD per million tokens) as published
in 2025 and is only a default. Suites override any entry with ``pricing:``. A model that is
not in the table gets no cost (None), never a guessed one.
"""

from __future__ import annotations

from collections.abc import Mapping

from promptum.providers._options import Price

# Keyed by "<vendor>/<model>"; a dated release ("gpt-4o-2024-08-06") matches its base name.
_LIST_PRICES: dict[str, Price] = {
    "openai/gpt-4o": Price(input=2.50, output=10.00),
    "openai/gpt-4o-mini": Price(input=0.15, output=0.60),
    "openai/gpt-4.1": Price(input=2.00, output=8.00),
    "openai/gpt-4.1-mini": Price(input=0.40, output=1.60),
    "openai/gpt-4.1-nano": Price(input=0.10, output=0.40),
    "openai/gpt-4-turbo": Price(input=10.00, output=30.00),
    "openai/gpt-4": Price(input=30.00, output=60.00),
    "openai/gpt-3.5-turbo": Price(input=0.50, output=1.50),
    "openai/o1": Price(input=15.00, output=60.00),
    "openai/o3-mini": Price(input=1.10, output=4.40),
    "openai/o4-mini": Price(input=1.10, output=4.40),
    "anthropic/claude-3-haiku": Price(input=0.25, output=1.25),
    "anthropic/claude-3-5-haiku": Price(input=0.80, output=4.00),
    "anthropic/claude-3-5-sonnet": Price(input=3.00, output=15.00),
    "anthropic/claude-3-7-sonnet": Price(input=3.00, output=15.00),
    "anthropic/claude-3-opus": Price(input=15.00, output=75.00),
    "anthropic/claude-sonnet-4": Price(input=3.00, output=15.00),
    "anthropic/claude-opus-4": Price(input=15.00, output=75.00),
}

# Models that run on the user's own machine cost nothing per token.
_FREE_PREFIXES = ("local/", "ollama/")


# Longest key first, so "gpt-4o-mini-2024-07-18" is not priced as "gpt-4o".
_BY_LENGTH = sorted(_LIST_PRICES, key=len, reverse=True)


def _list_price(vendor_model: str) -> Price | None:
    for key in _BY_LENGTH:
        if vendor_model == key or vendor_model.startswith(key + "-"):
            return _LIST_PRICES[key]
    return None


def price_for(model_id: str, overrides: Mapping[str, Price]) -> Price | None:
    """The price of a model id: an override, the list price, 0 for local models, else None."""
    if model_id in overrides:
        return overrides[model_id]
    if model_id.startswith(_FREE_PREFIXES):
        return Price(input=0.0, output=0.0)
    if model_id.startswith("openrouter/"):
        # OpenRouter passes vendors' list prices through: "openrouter/openai/gpt-4o".
        return _list_price(model_id.removeprefix("openrouter/"))
    return _list_price(model_id)
