"""From a model id to where it is served: the prefix names a built-in or configured endpoint.

``openai/gpt-4o`` → the ``openai`` endpoint, model ``gpt-4o``; ``openrouter/openai/gpt-4``
→ ``openrouter``, model ``openai/gpt-4``; ``local/smollm2`` → the embedded model;
``myvllm/llama-3`` → an endpoint named ``myvllm`` in the suite or in ``PROMPTUM_MYVLLM_*``;
``myprov/x`` → else, the provider class `register_provider` registered for ``myprov``, or
an installed package declares as entry point ``myprov`` of the ``promptum.providers`` group.

Keys are bound to hosts: a built-in provider's key (``OPENAI_API_KEY``...) is sent only to
that provider's own URL or to one set in the environment; every other endpoint, and a
built-in one whose URL or protocol the configuration changes, reads
``PROMPTUM_<NAME>_API_KEY`` (Python code may name another variable or give the key).
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from promptum.errors import PluginError, ProviderUnavailableError
from promptum.foundations.entry_points import PROVIDERS_GROUP, Registry, call_problem, caller_label
from promptum.foundations.suggestions import did_you_mean, suggestion
from promptum.providers._kinds import PROVIDER_KINDS, KindName, need_extra, provider_kind
from promptum.providers._local_model import (
    LOCAL_MODELS,
    context_size,
    default_threads,
    local_model_path,
    local_model_problem,
)
from promptum.providers._options import EndpointConfig
from promptum.providers._route import Route
from promptum.values.target import TARGET_PREFIX, HttpTarget, Target, http_url

DEFAULT_MODEL = "local/smollm2"

# The variables the SDKs read themselves; resolved here so the cache key sees them too.
# Keyed by the built-in endpoint named after its kind (openai, anthropic).
_SDK_BASE_URL_ENV: dict[str, str] = {
    kind.name: kind.base_url_variable
    for kind in PROVIDER_KINDS.values()
    if kind.base_url_variable is not None
}

BUILTIN_ENDPOINTS: dict[str, EndpointConfig] = {
    name: config
    for kind in PROVIDER_KINDS.values()
    for name, config in kind.builtin_endpoints().items()
}
"""The endpoints promptum knows by name, from the rows of `PROVIDER_KINDS`."""


def env_name(endpoint: str) -> str:
    """The ``PROMPTUM_<NAME>`` stem of an endpoint's environment variables."""
    return "PROMPTUM_" + endpoint.upper().replace("-", "_").replace(".", "_")


KEY_SUFFIX = "_API_KEY"
"""How every endpoint's key variable ends (`key_variable`)."""


def key_variable(endpoint: str) -> str:
    """The variable holding an endpoint's own key, the only one a suite may have it read."""
    return env_name(endpoint) + KEY_SUFFIX


def _environment_url(
    name: str, config: EndpointConfig | None, environ: Mapping[str, str]
) -> str | None:
    """The base URL the environment sets for an endpoint, if any; raise if it is no URL.

    A value without its scheme would be retried as a failed connection at every call.
    """
    variable = f"{env_name(name)}_BASE_URL"
    url = environ.get(variable)
    if name == "ollama" and not url and environ.get("OLLAMA_HOST"):
        variable, url = "OLLAMA_HOST", _ollama_url(environ["OLLAMA_HOST"])
    sdk_variable = _SDK_BASE_URL_ENV.get(name)
    if config and sdk_variable and not config.base_url and not url:
        variable, url = sdk_variable, environ.get(sdk_variable)
    if not url:
        return None
    try:
        return http_url(url)
    except ValueError as exc:
        raise ProviderUnavailableError(f"{variable}: {exc}") from None


def _redirects(builtin: EndpointConfig, own: EndpointConfig) -> bool:
    """Whether configuration sends a built-in provider's calls to another URL or protocol."""
    given = own.model_fields_set
    return ("base_url" in given and own.base_url != builtin.base_url) or (
        "kind" in given and own.kind != builtin.kind
    )


def _redirects_key(builtin: EndpointConfig, own: EndpointConfig) -> bool:
    """Whether configuration redirects a built-in provider without naming the key to send."""
    return _redirects(builtin, own) and "api_key_env" not in own.model_fields_set


def _merged(builtin: EndpointConfig | None, own: EndpointConfig | None) -> EndpointConfig | None:
    """The built-in settings with the configured ones over them."""
    if own is None:
        return builtin
    # Only what the configuration wrote replaces a built-in default.
    explicit = own.model_dump(include=own.model_fields_set)
    return builtin.model_copy(update=explicit) if builtin else own


def _at_url(config: EndpointConfig | None, url: str | None) -> EndpointConfig | None:
    """The settings with the environment's URL over theirs; a URL alone makes an endpoint."""
    if config is None:
        return EndpointConfig(base_url=url) if url else None
    return config.model_copy(update={"base_url": url}) if url else config


def endpoint_config(
    name: str, configured: Mapping[str, EndpointConfig], environ: Mapping[str, str]
) -> EndpointConfig | None:
    """An endpoint's settings: built-in defaults, then configured ones, then ``PROMPTUM_*`` env."""
    builtin = BUILTIN_ENDPOINTS.get(name)
    own = configured.get(name)
    merged = _merged(builtin, own)
    url = _environment_url(name, merged, environ)
    config = _at_url(merged, url)
    if config is None:
        return None
    if builtin and own and not url and _redirects_key(builtin, own):
        # A URL written in a suite may be anyone's server: the provider's key stays home.
        config = config.model_copy(update={"api_key_env": None})
    own_key = key_variable(name)
    if config.api_key is None and config.api_key_env is None and environ.get(own_key):
        config = config.model_copy(update={"api_key_env": own_key})
    return config


def _ollama_url(host: str) -> str:
    if "://" not in host:
        host = "http://" + host
    return host.rstrip("/") + "/v1"


def _no_prefix(model_id: str) -> str:
    hint = suggestion(f"local/{model_id}") if model_id in LOCAL_MODELS else ""
    return (
        f"model id {model_id!r} has no provider prefix.{hint} Write <provider>/<model>, "
        f"e.g. 'openai/gpt-4o' or {DEFAULT_MODEL!r}"
    )


_plugin_providers: dict[str, type[Any]] = {}
"""The provider classes of plugin prefixes: registered, or loaded from entry points."""
_REGISTRY: Registry[type[Any]] = Registry(
    "provider",
    PROVIDERS_GROUP,
    _plugin_providers,
    lambda prefix, target, plugin: _REGISTRY.add(
        prefix, _provider_class(prefix, target, plugin), plugin
    ),
    built_in_as="a built-in provider",
    reserved=(*BUILTIN_ENDPOINTS, "local"),
)
_PREFIX = re.compile(r"[^/\s]+")


def _plugin_names() -> list[str]:
    return list(dict.fromkeys([*_REGISTRY.plugin_names(), *_plugin_providers]))


def plugin_provider(prefix: str) -> type[Any] | None:
    """The provider class registered or installed for ``prefix``, loaded once; None if none.

    Raises `ProviderUnavailableError` naming the plugin when its class will not do.
    """
    try:
        return _REGISTRY.get(prefix)
    except PluginError as exc:
        raise ProviderUnavailableError(str(exc)) from None


def _provider_class(prefix: str, target: object, label: str) -> type[Any]:
    """``target`` if it is a provider class, else `PluginError`."""
    if not isinstance(target, type):
        raise _REGISTRY.error(
            prefix, label, f"it is a {type(target).__name__}, not a provider class"
        )
    if not inspect.iscoroutinefunction(getattr(target, "complete", None)):
        problem: str | None = "the class has no `async def complete(self, request) -> Completion`"
    else:
        problem = call_problem(target, 3, "Provider(endpoint, config, timeout_s)")
    if problem is not None:
        raise _REGISTRY.error(prefix, label, problem)
    return target


def register_provider(name: str, provider: type[Any]) -> type[Any]:
    """Serve the model ids ``name/<model>`` with ``provider``, as an installed plugin would.

    ``provider`` is a class built as ``provider(endpoint, config, timeout_s)`` with
    ``async def complete(self, request) -> Completion`` (the contract of a
    ``promptum.providers`` entry point). Built-in providers and endpoints a suite or the
    environment names win, as over a plugin. Raises `PluginError` if the name is taken or
    the class will not do.
    """
    plugin = caller_label("register_provider", provider)
    if not isinstance(name, str) or not _PREFIX.fullmatch(name):
        raise _REGISTRY.error(name, plugin, "a provider's name is a model id prefix, without '/'")
    if name in _REGISTRY.built_in or name in _plugin_providers:
        raise _REGISTRY.error(
            name, plugin, f"the name is taken ({_REGISTRY.whose(name)}); choose another"
        )
    return _REGISTRY.add(name, _provider_class(name, provider, plugin), plugin)


def unregister_provider(name: str) -> None:
    """Remove a registered provider (a built-in one stays); for tests and reloading code."""
    _REGISTRY.unregister(name)


def _unknown_provider(model_id: str, endpoint_names: Iterable[str]) -> str:
    prefix, _, name = model_id.partition("/")
    known = list(dict.fromkeys([*BUILTIN_ENDPOINTS, "local", *endpoint_names, *_plugin_names()]))
    hint = did_you_mean(prefix.lower(), {kind.lower(): f"{kind}/{name}" for kind in known})
    return (
        f"unknown provider {prefix!r} in model id {model_id!r}.{hint} Use one of "
        f"{', '.join(known)}, or name an endpoint {prefix!r} (endpoints: in the suite, or set "
        f"{env_name(prefix)}_BASE_URL)"
    )


def model_id_problem(
    model_id: str,
    endpoint_names: Iterable[str] = (),
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """What is wrong with a model id's form, provider or local model name; None when routable.

    Needs no key, file, network or llama.cpp: ``endpoint_names`` are the configured
    endpoints, and ``environ`` (default ``os.environ``) adds ``PROMPTUM_<NAME>_BASE_URL`` ones.
    Whether a key is set or an extra installed is `resolve`'s question, not this one's.
    """
    prefix, sep, name = model_id.partition("/")
    if not sep or not prefix or not name:
        return _no_prefix(model_id)
    if prefix == "local":
        return local_model_problem(name)
    env = os.environ if environ is None else environ
    names = list(endpoint_names)
    if prefix in BUILTIN_ENDPOINTS or prefix in names or env.get(f"{env_name(prefix)}_BASE_URL"):
        return None
    if prefix in _plugin_names():
        return None
    return _unknown_provider(model_id, names)


def repeated_model(model_ids: Iterable[str]) -> str | None:
    """What is wrong with a list of model ids that names one twice; None when each is once.

    A run makes one result per case, model and repeat: a model named twice would be planned
    twice and run once.
    """
    seen: set[str] = set()
    for model_id in model_ids:
        if model_id in seen:
            return f"{model_id!r} is listed twice: list each model once"
        seen.add(model_id)
    return None


def _target_route(model_id: str, targets: Mapping[str, Target]) -> Route:
    target = targets.get(model_id)
    if target is None:
        known = ", ".join(targets) or "none is declared"
        raise ProviderUnavailableError(
            f"unknown target {model_id!r}: declare it with `target:` in the suite, "
            f"Prompt(target=...) or Session(target=...) (targets: {known})"
        )
    kind: KindName = "http" if isinstance(target, HttpTarget) else "python"
    settings = EndpointConfig(
        max_concurrency=target.max_concurrency, timeout_s=target.timeout_s, retries=target.retries
    )
    return Route(model_id, model_id, kind, target.name, settings, model_id, target)


def resolve(
    model_id: str,
    configured: Mapping[str, EndpointConfig],
    environ: Mapping[str, str] | None = None,
    targets: Mapping[str, Target] | None = None,
) -> Route:
    """Route a model (or target) id, or raise `ProviderUnavailableError` saying what to fix."""
    env = os.environ if environ is None else environ
    if model_id.startswith(TARGET_PREFIX):
        return _target_route(model_id, targets or {})
    prefix, name = _prefixed(model_id)
    if prefix == "local":
        return _local_route(model_id, name)
    config = endpoint_config(prefix, configured, env)
    if config is None:
        return _plugin_route(model_id, prefix, name, configured)
    need_extra(provider_kind(config.kind), model_id)
    _check_key(model_id, config, env)
    identity = f"{config.kind}:{prefix}:{config.base_url or 'default'}"
    return Route(model_id, prefix, config.kind, name, config, identity)


def _local_route(model_id: str, name: str) -> Route:
    """The route of a ``local/`` model: its file, named by path, size and time."""
    need_extra(provider_kind("local"), model_id)
    default_threads(), context_size()  # a bad setting fails here, before any call
    path = local_model_path(name)
    stat = path.stat()
    identity = f"local:{path}:{stat.st_size}:{int(stat.st_mtime)}"
    return Route(model_id, "local", "local", str(path), None, identity)


def _plugin_route(
    model_id: str, prefix: str, name: str, configured: Mapping[str, EndpointConfig]
) -> Route:
    """The route of a plugin's model, or raise ProviderUnavailableError if no plugin has it."""
    plugin = plugin_provider(prefix)
    if plugin is None:
        raise ProviderUnavailableError(_unknown_provider(model_id, configured))
    # The class's own limit if it states one (calls in flight at once), else the default.
    limit = getattr(plugin, "max_concurrency", None)
    settings = EndpointConfig(max_concurrency=limit) if isinstance(limit, int) else EndpointConfig()
    identity = f"plugin:{prefix}:{plugin.__module__}.{plugin.__qualname__}"
    return Route(model_id, prefix, "plugin", name, settings, identity)


def _prefixed(model_id: str) -> tuple[str, str]:
    """A model id's provider prefix and model name, or raise ProviderUnavailableError."""
    prefix, sep, name = model_id.partition("/")
    if not sep or not prefix or not name:
        raise ProviderUnavailableError(_no_prefix(model_id))
    return prefix, name


def _check_key(model_id: str, config: EndpointConfig, env: Mapping[str, str]) -> None:
    """Raise ProviderUnavailableError if the endpoint's API key variable is not set."""
    if config.api_key is None and config.api_key_env and not env.get(config.api_key_env):
        raise ProviderUnavailableError(
            f"model {model_id!r} needs an API key: set the {config.api_key_env} "
            "environment variable"
        )
