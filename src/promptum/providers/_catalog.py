"""What can be called on this machine: every provider with its status, for ``promptum models``.

Nothing here makes a network call: a provider is "ready" when its package and key are
present, which is all that can be known without spending a request.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from promptum.errors import ProviderUnavailableError
from promptum.providers._kinds import PROVIDER_KINDS, provider_kind
from promptum.providers._options import EndpointConfig
from promptum.providers._routing import BUILTIN_ENDPOINTS, resolve

_ENV_ENDPOINT = re.compile(r"^PROMPTUM_([A-Z0-9_]+)_BASE_URL$")


@dataclass(frozen=True, slots=True)
class ProviderStatus:
    """One provider or endpoint: an example id, whether it can be used, and why not."""

    prefix: str
    example: str
    ready: bool
    detail: str
    """Where calls go when ready; what to do when not."""


def _status(
    prefix: str,
    example: str,
    configured: Mapping[str, EndpointConfig],
    environ: Mapping[str, str],
) -> ProviderStatus:
    try:
        route = resolve(example, configured, environ)
    except ProviderUnavailableError as exc:
        return ProviderStatus(prefix, example, ready=False, detail=str(exc))
    if not provider_kind(route.kind).interruptible:  # runs in this process
        detail = f"in-process: {Path(route.name).name}"
        return ProviderStatus(prefix, example, ready=True, detail=detail)
    where = (route.config.base_url if route.config else None) or "the SDK's default URL"
    return ProviderStatus(prefix, example, ready=True, detail=where)


def provider_statuses(
    configured: Mapping[str, EndpointConfig] | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[ProviderStatus]:
    """Every built-in provider, then each endpoint named in options or ``PROMPTUM_*`` env."""
    endpoints = dict(configured or {})
    env = os.environ if environ is None else environ
    examples = [example for kind in PROVIDER_KINDS.values() for example in kind.examples]
    statuses = [_status(example.partition("/")[0], example, endpoints, env) for example in examples]
    named = set(endpoints) | {
        match.group(1).lower() for name in env if (match := _ENV_ENDPOINT.match(name))
    }
    for prefix in sorted(named - set(BUILTIN_ENDPOINTS) - {"local"}):
        statuses.append(_status(prefix, f"{prefix}/<model>", endpoints, env))
    return statuses
