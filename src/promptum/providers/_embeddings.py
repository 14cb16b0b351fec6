"""Embedding endpoints for the `similar` check: an OpenAI-compatible ``/embeddings`` API.

A model id ``<endpoint>/<model>`` is routed as any model's is, and its key bound to its host
the same way. `promptum.providers` hands these functions to the embedding engine
(`promptum.embeddings.serve_endpoints`) when it loads; the check never imports providers.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Hashable, Sequence

from promptum.embeddings import Embedder, EmbeddingError, Vector, unit
from promptum.errors import ProviderUnavailableError
from promptum.providers._route import Route
from promptum.providers._routing import BUILTIN_ENDPOINTS, env_name, resolve
from promptum.providers._sdk import NO_KEY, endpoint_key, headers_kept_home, redact

_ENDPOINT_TIMEOUT_S = 30.0


class EndpointEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, its key bound to its host as for models."""

    def __init__(self, route: Route, key: str | None) -> None:
        from openai import Omit, OpenAI

        assert route.config is not None  # an openai-kind route always has one
        self.name = route.model_id
        self._model = route.name
        self._key = key
        self._client = OpenAI(
            api_key=key or NO_KEY,
            base_url=route.config.base_url,
            timeout=_ENDPOINT_TIMEOUT_S,
            max_retries=2,  # the SDK's backoff: a check has no retry budget of its own
            default_headers=headers_kept_home("openai", route.config, Omit()),
        )

    def embed(self, texts: Sequence[str]) -> list[Vector]:
        """Embed all ``texts`` in one request."""
        import openai

        try:
            response = self._client.embeddings.create(
                model=self._model, input=list(texts), encoding_format="float"
            )
        except openai.APIError as exc:
            message = " ".join(str(exc).split())[:300]
            raise EmbeddingError(
                redact(f"embedding endpoint {self.name!r} failed: {message}", [self._key])
            ) from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise EmbeddingError(
                f"embedding endpoint {self.name!r} returned {len(data)} embeddings "
                f"for {len(texts)} texts"
            )
        return [unit(item.embedding) for item in data]


def endpoint_embedder(model: str) -> tuple[Hashable, Callable[[], Embedder]]:
    """The key of the embedder for ``model`` (per endpoint URL and key) and how to make it."""
    # Routed on every call, as models are: the environment names the URL and the key.
    try:
        route = resolve(model, {})
    except ProviderUnavailableError as exc:
        raise EmbeddingError(str(exc)) from exc
    if route.kind != "openai" or route.config is None:
        raise EmbeddingError(f"{model!r}: embeddings need an OpenAI-compatible endpoint")
    secret = endpoint_key(route.config)
    key = (model, route.identity, hashlib.sha256((secret or "").encode()).hexdigest())

    def make() -> Embedder:
        return EndpointEmbedder(route, secret)

    return key, make


def endpoint_problem(model: str) -> str | None:
    """What is wrong with endpoint ``model`` for the similar check, or None; no network read."""
    prefix = model.partition("/")[0]
    builtin = BUILTIN_ENDPOINTS.get(prefix)
    if builtin is not None:
        if builtin.kind != "openai":
            return f"embedding model {model!r}: {prefix} has no OpenAI-compatible embeddings API"
        return None
    variable = env_name(prefix) + "_BASE_URL"
    if os.environ.get(variable):
        return None
    # Checks are built without the suite's `endpoints:`, so only the environment names one.
    return (
        f"unknown embeddings endpoint {prefix!r} in {model!r}: use a built-in one "
        f"({', '.join(n for n, c in BUILTIN_ENDPOINTS.items() if c.kind == 'openai')}), or set "
        f"{variable} (and {env_name(prefix)}_API_KEY if it needs a key)"
    )
