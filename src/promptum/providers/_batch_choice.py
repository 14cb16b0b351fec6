"""Which of a run's models send their calls through a batch API, decided before the run.

Every run asks (``--batch`` and an endpoint's ``batch:`` choose); only a run that batches
loads the batch APIs themselves (`promptum.providers._batch`) and the SDK code they use.
"""

from __future__ import annotations

from collections.abc import Sequence

from promptum.errors import ConfigError
from promptum.providers._client import ModelClient

BATCH_API_ENDPOINTS = ("openai", "anthropic")
"""The built-in endpoints whose provider has a batch API (OpenRouter and Ollama have none)."""


def batch_problem(client: ModelClient, model: str) -> str | None:
    """Why `model`'s calls cannot go through a batch API under ``--batch``; None if they can."""
    route = client._route(model)
    if route.target is not None:
        return (
            f"{model!r} is a target (your own function or service), which has no batch API; "
            "run it without --batch"
        )
    if route.config is None:
        return f"{model!r} is the embedded model, which has no batch API; run it without --batch"
    if route.kind == "plugin":
        return f"{model!r} is a plugin's provider, which has no batch API; run it without --batch"
    if route.config.batch is None and route.endpoint not in BATCH_API_ENDPOINTS:
        return (
            f"endpoint {route.endpoint!r} of {model!r} has no batch API promptum knows of: set "
            "`batch: true` on it if it serves OpenAI's /v1/batches or Anthropic's Message "
            "Batches, or `batch: false` to run its calls live"
        )
    return None


def batched_models(client: object, models: Sequence[str], *, executor: bool = False) -> list[str]:
    """The models whose calls the run sends through a batch API (``--batch``, ``batch: true``).

    Raises `ConfigError` naming the model and what to do when ``--batch`` asks for a model
    without a batch API (the embedded model, a target, an endpoint without one), or when
    the units run elsewhere (`executor`): the batch is submitted and served in this process.
    """
    if not isinstance(client, ModelClient):
        return []  # a client of the caller's own: it makes every call itself
    chosen = []
    for model in models:
        route = client._route(model)
        own = route.config.batch if route.config is not None else None
        if own is False or (own is None and not client.options.batch):
            continue
        problem = batch_problem(client, model) if own is None else None
        if problem is not None:
            raise ConfigError(f"--batch: {problem}")
        chosen.append(model)
    if chosen and executor:
        raise ConfigError(
            "--batch: a batch is submitted and read back in this process, so it cannot run "
            "with --executor ray; drop one of them (or `batch: true` on the endpoint)"
        )
    return chosen
