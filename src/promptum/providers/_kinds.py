"""The one table of provider kinds: everything that can answer a case is a row here.

Routing reads a row's optional package, the client its factory, whether its calls can be
interrupted and whether one limit serves a whole endpoint, and ``promptum models`` its
example ids. A new native provider is one module (a class taking the `Route` and the
timeout) and one row; the runner never learns which kind it calls.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Literal

from promptum.errors import ProviderUnavailableError

KindName = Literal["openai", "anthropic", "local", "plugin", "python", "http"]


@dataclass(frozen=True, slots=True)
class ProviderKind:
    """One kind of thing that answers a request: how to build it and what it needs."""

    name: KindName
    factory: str
    """``module:callable`` building the provider from ``(route, timeout_s)``; imported on
    first use, so an SDK is loaded only when a call needs it."""
    extra: tuple[str, str] | None = None
    """(module to look for, promptum extra that installs it), or None when always there."""
    key_variables: tuple[str, ...] = ()
    """The environment variables the kind's SDK reads by itself (kept home: see _routing)."""
    examples: tuple[str, ...] = ()
    """Model ids ``promptum models`` shows as examples, one per built-in endpoint."""
    interruptible: bool = True
    """Whether the client's timeout can stop a call (in-process llama.cpp cannot be)."""
    per_model: bool = False
    """One provider and one concurrency limit per model (a file, a function), not per
    endpoint: a GGUF file is its own lock, two targets are two services."""
    cacheable: bool = True
    """Whether answers are cached: a target's are not, as its code changes under the same id."""
    retries_timeouts: bool = True
    """Whether a call that timed out is retried without being asked (``retries``): a model
    under load may answer next time, while a target that hung usually hangs again."""


PROVIDER_KINDS: dict[str, ProviderKind] = {
    kind.name: kind
    for kind in (
        ProviderKind(
            "local",
            "promptum.providers._local:LocalProvider",
            extra=("llama_cpp", "local"),
            examples=("local/smollm2",),
            # Generation runs in llama.cpp's own thread; max_tokens bounds it instead.
            interruptible=False,
            per_model=True,
        ),
        ProviderKind(
            "openai",
            "promptum.providers._openai:OpenAIProvider",
            key_variables=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
            examples=(
                "openai/gpt-4o-mini",
                "openrouter/openai/gpt-4o-mini",
                "ollama/llama3.2",
            ),
        ),
        ProviderKind(
            "anthropic",
            "promptum.providers._anthropic:AnthropicProvider",
            extra=("anthropic", "anthropic"),
            key_variables=("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
            examples=("anthropic/claude-3-5-haiku-latest",),
        ),
        ProviderKind("plugin", "promptum.providers._plugin:plugin_provider_for"),
        ProviderKind(
            "python",
            "promptum.providers._python_target:PythonTargetProvider",
            per_model=True,
            cacheable=False,
            retries_timeouts=False,
        ),
        ProviderKind(
            "http",
            "promptum.providers._http_target:HttpTargetProvider",
            per_model=True,
            cacheable=False,
            retries_timeouts=False,
        ),
    )
}


def provider_kind(name: str) -> ProviderKind:
    """The row of a kind (a `Route.kind` or `EndpointConfig.kind`)."""
    return PROVIDER_KINDS[name]


def need_extra(kind: ProviderKind, model_id: str) -> None:
    """Raise `ProviderUnavailableError` with the install hint if the kind's package is missing."""
    if kind.extra is None:
        return
    module, extra = kind.extra
    if importlib.util.find_spec(module) is None:
        raise ProviderUnavailableError(
            f"model {model_id!r} needs the {module} package: pip install 'promptum[{extra}]'"
        )
