"""Where one model id goes (`Route`), and the provider its kind builds for it.

Routing (`_routing.resolve`) makes routes; the providers take one in their constructor.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from promptum.providers._kinds import KindName, provider_kind
from promptum.providers._options import EndpointConfig
from promptum.values.target import Target

if TYPE_CHECKING:
    from promptum.providers._base import Provider

NO_LIMIT = sys.maxsize
"""The `Route.max_concurrency` of an endpoint that sets none: never the smaller limit."""


@dataclass(frozen=True, slots=True)
class Route:
    """Where one model id goes: the endpoint's name and settings, and the model's own name."""

    model_id: str
    endpoint: str
    kind: KindName
    """The row of `PROVIDER_KINDS` that builds its provider."""
    name: str
    """The model as the endpoint knows it (``gpt-4o``; for local models the GGUF path)."""
    config: EndpointConfig | None
    """The endpoint's settings (None for the embedded local model)."""
    identity: str
    """What besides the request decides an answer, for the cache key: the endpoint's URL,
    or the GGUF file with its size and date (never a key)."""
    target: Target | None = None
    """The function or service of a ``target:`` id (kinds ``python`` and ``http``)."""

    @property
    def max_concurrency(self) -> int:
        """How many calls may be in flight at once where this route leads.

        The embedded model (no config) takes one; an endpoint without a limit of its own
        takes any number (`NO_LIMIT`), so the run's concurrency decides.
        """
        if self.config is None:
            return 1
        return self.config.max_concurrency or NO_LIMIT

    @property
    def limit_key(self) -> str:
        """What one concurrency limit covers: the endpoint, or the model of a per-model kind."""
        return self.model_id if provider_kind(self.kind).per_model else self.endpoint


def build_provider(route: Route, timeout_s: float) -> Provider:
    """A new provider for a route, by its kind's factory."""
    module, name = provider_kind(route.kind).factory.split(":")
    factory: Any = getattr(importlib.import_module(module), name)
    provider: Provider = factory(route, timeout_s)
    return provider
