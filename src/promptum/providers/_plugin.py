"""The ``plugin`` kind: a provider class an installed package declares for a prefix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptum.errors import ProviderUnavailableError
from promptum.providers._routing import plugin_provider

if TYPE_CHECKING:
    from promptum.providers._base import Provider
    from promptum.providers._route import Route


def plugin_provider_for(route: Route, timeout_s: float) -> Provider:
    """The plugin's class built as documented: ``Cls(endpoint, config, timeout_s)``."""
    cls = plugin_provider(route.endpoint)
    if cls is None:  # uninstalled since routing found it
        raise ProviderUnavailableError(f"no provider plugin serves {route.model_id!r} any more")
    provider: Provider = cls(route.endpoint, route.config, timeout_s)
    return provider
