"""Shared by the SDK providers: the endpoint's key, and HTTP errors as one key-free line."""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from promptum.foundations.fresh_import import import_fresh
from promptum.providers._errors import (
    ConnectionFailedError,
    MalformedResponseError,
    ProviderError,
    ProviderTimeoutError,
    error_for_status,
)
from promptum.providers._kinds import provider_kind
from promptum.providers._options import EndpointConfig
from promptum.providers._retry import parse_retry_after
from promptum.providers._route import Route

NO_KEY = "no-key"
"""Sent to keyless servers (Ollama, llama.cpp): the SDKs insist on some key."""

# Vendors echo (partly masked) keys in 401 messages; none of it may reach a report or store.
_KEY_LIKE = re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_\-*]{6,}")
_MAX_MESSAGE = 300


def endpoint_key(config: EndpointConfig) -> str | None:
    """The endpoint's API key, from the config or its environment variable."""
    if config.api_key is not None:
        return config.api_key.get_secret_value()
    if config.api_key_env:
        return os.environ.get(config.api_key_env)
    return None


def headers_kept_home(kind: str, config: EndpointConfig, omit: object) -> dict[str, Any]:
    """The headers an SDK would add from its environment, mapped to `omit` to drop them.

    They travel with the SDK's own credentials: an endpoint that does not send the SDK's
    own key (a server a suite names, OpenRouter, Ollama...) gets none of them, since
    ``OPENAI_CUSTOM_HEADERS`` may carry a proxy's token. Empty when they may go.
    """
    # What the SDK adds to every request from its own environment variables, besides the key:
    # the row of its kind names its own key's variable, its headers and its custom ones.
    row = provider_kind(kind)
    if row.key_variable is not None and config.api_key_env == row.key_variable:
        return {}
    # Parsed the way the SDKs parse them: one ``Name: value`` per line.
    custom = os.environ.get(row.custom_headers_variable or "", "")
    names = [*row.sdk_headers, *(line.partition(":")[0].strip() for line in custom.split("\n"))]
    return {name: omit for name in names if name}


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every given secret and anything shaped like an API key masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _KEY_LIKE.sub(r"\1-***", text)


def body_message(body: object, fallback: str) -> str:
    """The human part of an error body: ``message`` (or ``error.message``), else the fallback."""
    if isinstance(body, Mapping):
        inner: Any = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    if isinstance(body, str) and body.strip():
        return body.strip()
    return fallback


def error_body(text: str) -> object:
    """An error answer's body as the SDK keeps it: its JSON, else its text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def status_error(
    status: int,
    headers: Mapping[str, str],
    body: object,
    fallback: str,
    secrets: Iterable[str | None],
) -> ProviderError:
    """The typed error for an HTTP error answer, its message one line and key-free."""
    message = " ".join(body_message(body, fallback).split())[:_MAX_MESSAGE]
    return error_for_status(status, redact(message, secrets), parse_retry_after(headers))


class _Closable(Protocol):
    async def close(self) -> None: ...


Client = TypeVar("Client", bound=_Closable)


class SdkProvider(Generic[Client]):
    """An endpoint reached through a vendor's SDK: its settings, its key and one SDK client."""

    sdk: ClassVar[str]
    """The SDK's package, imported with the first client."""

    def __init__(self, route: Route, timeout_s: float) -> None:
        assert route.config is not None  # every endpoint route has its settings
        self.route = route
        self.endpoint = route.endpoint
        self.config: EndpointConfig = route.config
        self.timeout_s = timeout_s
        self._key = endpoint_key(self.config)
        self._heard: Callable[[Mapping[str, str]], None] | None = None
        # Built now, not on the first call, so the SDK's import is not timed as latency.
        self._client: Client | None = None
        self._sdk()

    def _new_client(self) -> Client:
        """The SDK's client for this endpoint, its own retries off (the SDK imported here)."""
        raise NotImplementedError

    def _client_options(self, kind: str, omit: object, http_client: object) -> dict[str, Any]:
        """The settings every SDK client is made with: `omit` and `http_client` are the SDK's.

        `http_client` is made with `_hooks` (and any of the provider's own).
        """
        return {
            # A placeholder for keyless endpoints keeps an SDK from searching profile files
            # and identity federation for credentials.
            "api_key": self._key or NO_KEY,
            "base_url": self.config.base_url,
            "timeout": self.timeout_s,
            "max_retries": 0,  # ModelClient owns retries, backoff and the budget
            "default_headers": headers_kept_home(kind, self.config, omit),
            "http_client": http_client,
        }

    def listen(self, heard: Callable[[Mapping[str, str]], None]) -> None:
        """Show `heard` the headers of every answer (the endpoint's pace reads its limits)."""
        self._heard = heard

    @property
    def _hooks(self) -> dict[str, list[Any]]:
        """The HTTP client's event hooks: each answer's headers, before its body is read."""
        return {"response": [self._on_response]}

    async def _on_response(self, response: Any) -> None:
        if self._heard is not None:
            self._heard(response.headers)

    def _sdk(self) -> Client:
        if self._client is None:
            import_fresh(self.sdk)  # first asked for deep in the run: see `import_fresh`
            self._client = self._new_client()
        return self._client

    async def aclose(self) -> None:
        """Close the SDK's HTTP connections (a later call opens new ones)."""
        if self._client is not None:
            await self._client.close()
            self._client = None


@asynccontextmanager
async def sdk_errors(sdk: ModuleType, provider: SdkProvider[Any]) -> AsyncIterator[None]:
    """The exceptions of `sdk` (``openai``, ``anthropic``) as typed errors, one line, key-free."""
    try:
        yield
    except sdk.APITimeoutError as exc:
        raise ProviderTimeoutError(f"no answer within {provider.timeout_s:g} s") from exc
    except sdk.APIConnectionError as exc:
        cause = exc.__cause__ or exc
        message = f"connection to {provider._sdk().base_url} failed: {cause}"
        raise ConnectionFailedError(redact(message, [provider._key])) from exc
    except sdk.APIStatusError as exc:
        raise status_error(
            exc.status_code, exc.response.headers, exc.body, exc.message, [provider._key]
        ) from exc
    except (sdk.APIResponseValidationError, ValueError) as exc:
        raise MalformedResponseError(f"the answer is not valid JSON: {exc}") from exc
