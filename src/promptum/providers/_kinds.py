"""The one table of provider kinds: everything that can answer a case is a row here.

Routing reads a row's optional package, its built-in endpoints and the variables its SDK
reads by itself, the client its factory, whether its calls can be interrupted and whether
one limit serves a whole endpoint, and ``promptum models`` its example ids. A new native
provider is one module (a class taking the `Route` and the timeout) and one row; the runner
never learns which kind it calls.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Literal

from promptum.errors import ProviderUnavailableError
from promptum.providers._options import EndpointConfig

_OLLAMA_URL = "http://127.0.0.1:11434/v1"

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
    key_variable: str | None = None
    """The variable of the SDK's own key (``OPENAI_API_KEY``): the kind's own endpoint (the
    one of `endpoints` named after it) reads it, and it is sent nowhere else (see _routing)."""
    base_url_variable: str | None = None
    """The variable the SDK reads its URL from by itself; the kind's own endpoint honours it."""
    sdk_headers: tuple[str, ...] = ()
    """Headers the SDK adds from its own environment variables; with the custom ones below,
    they go only where the SDK's own key goes."""
    custom_headers_variable: str | None = None
    """The variable of the SDK's free-form extra headers (``OPENAI_CUSTOM_HEADERS``)."""
    endpoints: tuple[tuple[str, EndpointConfig], ...] = ()
    """The built-in endpoints the kind serves, with their defaults: ``<name>/<model>`` ids."""
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

    @property
    def key_variables(self) -> tuple[str, ...]:
        """The environment variables the kind's SDK reads by itself (kept home: see _routing)."""
        return tuple(v for v in (self.key_variable, self.base_url_variable) if v is not None)

    def builtin_endpoints(self) -> dict[str, EndpointConfig]:
        """The kind's built-in endpoints; its own, named after it, reads `key_variable`."""
        return {
            name: self._own(config) if name == self.name else config
            for name, config in self.endpoints
        }

    def _own(self, config: EndpointConfig) -> EndpointConfig:
        update: dict[str, object] = {"api_key_env": self.key_variable}
        if config.kind != self.name:
            update["kind"] = self.name
        return config.model_copy(update=update)


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
            key_variable="OPENAI_API_KEY",
            base_url_variable="OPENAI_BASE_URL",
            sdk_headers=("OpenAI-Organization", "OpenAI-Project"),
            custom_headers_variable="OPENAI_CUSTOM_HEADERS",
            # Hosted APIs set no limit of their own: the run's --concurrency is what the user
            # gets, unless an endpoint they configure sets a lower `max_concurrency`.
            endpoints=(
                # base_url None: the SDK applies its own default and honours OPENAI_BASE_URL.
                ("openai", EndpointConfig(structured_output="json_schema")),
                (
                    "openrouter",
                    EndpointConfig(
                        base_url="https://openrouter.ai/api/v1",
                        api_key_env="OPENROUTER_API_KEY",
                        structured_output="json_schema",
                    ),
                ),
                # Ollama serves one request at a time unless OLLAMA_NUM_PARALLEL says
                # otherwise, and calls queued behind a slow local model would time out.
                ("ollama", EndpointConfig(base_url=_OLLAMA_URL, max_concurrency=1)),
            ),
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
            key_variable="ANTHROPIC_API_KEY",
            base_url_variable="ANTHROPIC_BASE_URL",
            custom_headers_variable="ANTHROPIC_CUSTOM_HEADERS",
            # base_url None: the SDK honours ANTHROPIC_BASE_URL.
            endpoints=(("anthropic", EndpointConfig()),),
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
