"""Prices for cost figures: the vendors' list prices of 2026-12-06, overridable per model id.

The table (``list_prices.json`` beside this module) holds the list price, in USD per million
tokens, of each OpenAI and Anthropic chat model and of each OpenRouter model id, with their
prompt-cache and long-context rates, as genai-prices 0.2.3 (pydantic's table, MIT) listed
them when taken on 2026-12-06. It is copied as data, never fetched: promptum contacts no
host for a price. Prices change, so the table is only a default: a suite's ``pricing:``
(per model id) and an endpoint's ``price:`` (every model it serves) come first. A model
that has none of these gets no cost (None), never a guessed one.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any, Literal

from promptum.providers._options import EndpointConfig, Price
from promptum.providers._routing import BUILTIN_ENDPOINTS, endpoint_config

LIST_PRICES_TAKEN = "2026-12-06"
"""When the built-in list prices were taken (``list_prices.json`` says the same)."""

PriceSource = Literal["pricing", "endpoint", "free", "list"]
"""Where a model's price came from: a ``pricing:`` entry, its endpoint's ``price:``, a
model on the user's machine, or the built-in list prices."""

# Models that run on the user's own machine cost nothing per token.
_FREE_PREFIXES = ("local/", "ollama/")

# A dated or aliased release ("gpt-4o-2024-08-06", "claude-sonnet-4-20250514",
# "gpt-4-0613", "claude-3-5-haiku-latest") is priced as its base model when the table does
# not name it. Only such suffixes: "claude-sonnet-4-7" is not "claude-sonnet-4".
_RELEASE = re.compile(r"(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4}|-latest|@\d{8})$")

# OpenRouter bills OpenAI's and Anthropic's models at their list prices.
_PASSED_THROUGH = ("openai/", "anthropic/")


def _table() -> dict[str, dict[str, Any]]:
    """The built-in list prices by model id, read afresh: `_listed` keeps what it finds.

    A run looks up a few model ids; the whole table decoded is 0.4 MB it would keep for
    nothing.
    """
    text = resources.files(__package__).joinpath("list_prices.json").read_text("utf-8")
    prices: dict[str, dict[str, Any]] = json.loads(text)["prices"]
    return prices


@cache
def _listed(model_id: str) -> Price | None:
    """The list price of exactly this id, or of the release it names the base model of."""
    table = _table()
    entry = table.get(model_id)
    if entry is None:
        base = _RELEASE.sub("", model_id)
        entry = table.get(base) if base != model_id else None
    return None if entry is None else Price.model_validate(entry)


def _list_price(model_id: str) -> Price | None:
    price = _listed(model_id)
    routed = model_id.removeprefix("openrouter/")
    if price is None and routed != model_id and routed.startswith(_PASSED_THROUGH):
        price = _listed(routed)
    return price


def priced(
    model_id: str,
    overrides: Mapping[str, Price],
    endpoints: Mapping[str, EndpointConfig] | None = None,
) -> tuple[Price, PriceSource] | None:
    """A model id's price and where it came from; None when nothing prices it."""
    if model_id in overrides:
        return overrides[model_id], "pricing"
    endpoint = (endpoints or {}).get(model_id.partition("/")[0])
    if endpoint is not None and endpoint.price is not None:
        return endpoint.price, "endpoint"
    if model_id.startswith(_FREE_PREFIXES):
        return Price(input=0.0, output=0.0), "free"
    price = _list_price(model_id)
    return None if price is None else (price, "list")


def price_for(
    model_id: str,
    overrides: Mapping[str, Price],
    endpoints: Mapping[str, EndpointConfig] | None = None,
) -> Price | None:
    """A model id's price: an override, its endpoint's, 0 if local, the list price, or None."""
    found = priced(model_id, overrides, endpoints)
    return None if found is None else found[0]


def _promptum_prices(model_id: str, endpoints: Mapping[str, EndpointConfig]) -> bool:
    """Whether promptum prices the model's calls (OpenAI's or Anthropic's protocol).

    A target or a plugin's provider reports its own cost, if any.
    """
    return endpoint_config(model_id.partition("/")[0], endpoints, os.environ) is not None


def unpriced_problem(
    model_id: str, overrides: Mapping[str, Price], endpoints: Mapping[str, EndpointConfig]
) -> str | None:
    """Why a cost bound on `model_id` cannot hold, and how to give its price; None if it can."""
    if priced(model_id, overrides, endpoints) is not None:
        return None
    if not _promptum_prices(model_id, endpoints):
        return None
    endpoint = model_id.partition("/")[0]
    # A built-in endpoint serves models of many prices: only the model's own entry fits it.
    whole = "" if endpoint in BUILTIN_ENDPOINTS else f", or `price:` on endpoint {endpoint!r}"
    return (
        f"max_cost_usd bounds the cost of {model_id}, which has no price, so every answer of "
        "it would fail the bound; give its price in USD per million tokens under `pricing:` "
        f"({model_id}: {{input: <usd>, output: <usd>}}){whole}"
    )


Basis = Literal[PriceSource, "reported", "none"]
"""How a run's model was priced: a `PriceSource`, its provider's or target's own figure
(``reported``: promptum prices only what it calls over OpenAI's and Anthropic's protocols),
or not at all (``none``: its cost counts as nothing)."""

_SAID: dict[str, str] = {
    "pricing": "`pricing:`",
    "endpoint": "endpoint `price:`",
    "free": "free, on this machine",
    "reported": "as reported",
    "none": "no price, not counted",
}


def pricing_basis(
    models: Iterable[str], overrides: Mapping[str, Price], endpoints: Mapping[str, EndpointConfig]
) -> dict[str, Any]:
    """How each of a run's models is priced, for its config; {} when none is priced."""
    basis: dict[str, Basis] = {}
    for model in models:
        found = priced(model, overrides, endpoints)
        if found is not None:
            basis[model] = found[1]
        elif not _promptum_prices(model, endpoints):
            basis[model] = "reported"
        else:
            basis[model] = "none"
    if not any(source in ("list", "pricing", "endpoint") for source in basis.values()):
        return {}  # the config of a run with nothing priced stays as it was
    return {"pricing": {"list_prices": LIST_PRICES_TAKEN, "models": basis}}


def pricing_line(config: Mapping[str, Any]) -> str | None:
    """The summary's word on how cost was priced, from a run's config; None if unrecorded."""
    recorded = config.get("pricing")
    if not isinstance(recorded, dict) or not isinstance(recorded.get("models"), dict):
        return None
    by_basis: dict[str, list[str]] = {}
    for model, basis in recorded["models"].items():
        by_basis.setdefault(str(basis), []).append(str(model))
    said = {**_SAID, "list": f"list prices of {recorded.get('list_prices')}"}
    parts = [
        f"{said.get(basis, basis)} ({', '.join(models)})" for basis, models in by_basis.items()
    ]
    batched = config.get("batch")  # `run --batch`: the models whose calls went in batches
    if isinstance(batched, list) and batched:
        parts.append(f"batch price, half, for batch answers ({', '.join(map(str, batched))})")
    return f"Cost: {'; '.join(parts)}; prompt-cache tokens at their cached rates."
