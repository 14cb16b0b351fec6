"""From a model id to where it is served: the prefix names a built-in or configured endpoint.

``openai/gpt-4o`` → the ``openai`` endpoint, model ``gpt-4o``; ``openrouter/openai/gpt-4``
→ ``openrouter``, model ``openai/gpt-4``; ``local/smollm2`` → the embedded model;
``myvllm/llama-3`` → an endpoint named ``myvllm`` in the suite or in ``PROMPTUM_MYVLLM_*``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from promptum.errors import ProviderUnavailableError
from promptum.providers._local_model import local_model_path
from promptum.providers._options import EndpointConfig

DEFAULT_MODEL = "local/smollm2"

_OLLAMA_URL = "http://127.0.0.1:11434/v1"
# The variables the SDKs read themselves; resolved here so the cache key sees them too.
_SDK_BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}

BUILTIN_ENDPOINTS: dict[str, EndpointConfig] = {
    # base_url None: the SDK applies its own default and honours OPENAI_BASE_URL.
    "openai": EndpointConfig(
        api_key_env="OPENAI_API_KEY", max_concurrency=8, structured_output="json_schema"
    ),
    "openrouter": EndpointConfig(
        base_url="https://openrouter.ai/api/v1",
        api_key_env="OPENROUTER_API_KEY",
        max_concurrency=8,
        structured_output="json_schema",
    ),
    # Ollama serves one request at a time unless OLLAMA_NUM_PARALLEL says otherwise.
    "ollama": EndpointConfig(base_url=_OLLAMA_URL, max_concurrency=1),
    # base_url None: the SDK honours ANTHROPIC_BASE_URL.
    "anthropic": EndpointConfig(
        kind="anthropic", api_key_env="ANTHROPIC_API_KEY", max_concurrency=8
    ),
}

_EXTRAS: dict[str, tuple[str, str]] = {
    # kind -> (module to look for, extra that installs it)
    "anthropic": ("anthropic", "anthropic"),
    "local": ("llama_cpp", "local"),
}


@dataclass(frozen=True, slots=True)
class Route:
    """Where one model id goes: the endpoint's name and settings, and the model's own name."""

    model_id: str
    endpoint: str
    kind: Literal["openai", "anthropic", "local"]
    name: str
    """The model as the endpoint knows it (``gpt-4o``; for local models the GGUF path)."""
    config: EndpointConfig | None
    """The endpoint's settings (None for the embedded local model)."""
    identity: str
    """What besides the request decides an answer, for the cache key: the endpoint's URL,
    or the GGUF file with its size and date (never a key)."""


def env_name(endpoint: str) -> str:
    """The ``PROMPTUM_<NAME>`` stem of an endpoint's environment variables."""
    return "PROMPTUM_" + endpoint.upper().replace("-", "_").replace(".", "_")


def endpoint_config(
    name: str, configured: Mapping[str, EndpointConfig], environ: Mapping[str, str]
) -> EndpointConfig | None:
    """An endpoint's settings: built-in defaults, then the suite's, then ``PROMPTUM_*`` env."""
    config = BUILTIN_ENDPOINTS.get(name)
    if name in configured:
        own = configured[name]
        # Only what the suite wrote replaces a built-in default.
        explicit = own.model_dump(include=own.model_fields_set)
        config = config.model_copy(update=explicit) if config else own
    stem = env_name(name)
    base_url = environ.get(f"{stem}_BASE_URL")
    if name == "ollama" and not base_url and environ.get("OLLAMA_HOST"):
        base_url = _ollama_url(environ["OLLAMA_HOST"])
    sdk_variable = _SDK_BASE_URL_ENV.get(name)
    if config and sdk_variable and not config.base_url and not base_url:
        base_url = environ.get(sdk_variable)
    if base_url:
        key_env = f"{stem}_API_KEY"
        if config is None:
            config = EndpointConfig(
                base_url=base_url, api_key_env=key_env if key_env in environ else None
            )
        else:
            config = config.model_copy(update={"base_url": base_url})
    return config


def _ollama_url(host: str) -> str:
    if "://" not in host:
        host = "http://" + host
    return host.rstrip("/") + "/v1"


def _need_extra(kind: str, model_id: str) -> None:
    module, extra = _EXTRAS[kind]
    if importlib.util.find_spec(module) is None:
        raise ProviderUnavailableError(
            f"model {model_id!r} needs the {module} package: pip install 'promptum[{extra}]'"
        )


def resolve(
    model_id: str,
    configured: Mapping[str, EndpointConfig],
    environ: Mapping[str, str] | None = None,
) -> Route:
    """Route a model id, or raise `ProviderUnavailableError` saying what to fix."""
    env = os.environ if environ is None else environ
    prefix, sep, name = model_id.partition("/")
    if not sep or not prefix or not name:
        raise ProviderUnavailableError(
            f"model id {model_id!r} has no provider prefix: write <provider>/<model>, "
            f"e.g. 'openai/gpt-4o' or {DEFAULT_MODEL!r}"
        )
    if prefix == "local":
        _need_extra("local", model_id)
        path = local_model_path(name)
        stat = path.stat()
        identity = f"local:{path}:{stat.st_size}:{int(stat.st_mtime)}"
        return Route(model_id, "local", "local", str(path), None, identity)
    config = endpoint_config(prefix, configured, env)
    if config is None:
        known = ", ".join([*BUILTIN_ENDPOINTS, "local", *configured])
        raise ProviderUnavailableError(
            f"unknown provider {prefix!r} in model id {model_id!r}: use one of {known}, "
            f"or name an endpoint {prefix!r} (endpoints: in the suite, or set "
            f"{env_name(prefix)}_BASE_URL)"
        )
    if config.kind == "anthropic":
        _need_extra("anthropic", model_id)
    if config.api_key is None and config.api_key_env and not env.get(config.api_key_env):
        raise ProviderUnavailableError(
            f"model {model_id!r} needs an API key: set the {config.api_key_env} "
            "environment variable"
        )
    identity = f"{config.kind}:{prefix}:{config.base_url or 'default'}"
    return Route(model_id, prefix, config.kind, name, config, identity)
