"""A chat completion's POST as the SDK first sent it, sent again with each new body.

The SDK makes each request through a pipeline (options model, URL merge, headers merged
and validated, an idempotency key, a response wrapper) that is the same for every call
of one endpoint and costs about 0.4 ms of CPU a call: a third of a 10,000-case run
against a fast server. So the SDK makes an endpoint's first chat completion; its HTTP
client's request hook notes the URL and headers the SDK chose (`note`), and every later
call posts the new body with them through the same client (`post`). What is sent is what
the SDK sends; errors read as the SDK's would (`sdk_errors`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from promptum.providers._errors import (
    ConnectionFailedError,
    MalformedResponseError,
    ProviderTimeoutError,
)
from promptum.providers._sdk import error_body, redact, status_error

_PATH = "/chat/completions"
_BODY_HEADERS = frozenset({"content-length", "transfer-encoding"})
"""Headers that describe the first request's body, not the next one's: the client sets them."""


def transport_of(client: object) -> ModuleType:
    """The HTTP package `client` is built on: ``httpx``, or ``httpx2`` (openai 3's)."""
    for cls in type(client).__mro__:
        root = cls.__module__.partition(".")[0]
        if root in ("httpx", "httpx2"):
            return sys.modules[root]
    raise TypeError(f"{type(client).__name__} is not an httpx client")


def answer_data(content_type: str, text: str) -> object:
    """An answer's body as the SDK reads it for a plain result: JSON, else its text."""
    if not content_type.partition(";")[0].strip().endswith("json"):
        return text
    try:
        return json.loads(text)
    except ValueError as exc:
        raise MalformedResponseError(f"the answer is not valid JSON: {exc}") from exc


class ReplayedPost:
    """The chat-completion request one endpoint's SDK made, and posting it again."""

    def __init__(
        self,
        http_client: Callable[..., Any],
        hooks: Mapping[str, list[Any]],
        timeout_s: float,
        secrets: Sequence[str | None],
    ) -> None:
        self.http: Any = http_client(event_hooks={**hooks, "request": [self.note]})
        """The HTTP client to give the SDK (`http_client` with `hooks` and `note`)."""
        self._transport = transport_of(self.http)
        self._timeout_s = timeout_s
        self._secrets = secrets
        self._url: str | None = None
        self._headers: dict[str, str] = {}

    @property
    def ready(self) -> bool:
        """Whether the SDK has made a chat completion, so its request can be sent again."""
        return self._url is not None

    async def note(self, request: Any) -> None:
        """The HTTP client's request hook: keep the SDK's first chat completion's request."""
        if self._url is None and request.method == "POST" and request.url.path.endswith(_PATH):
            self._headers = {
                name: value
                for name, value in request.headers.items()
                if name.lower() not in _BODY_HEADERS
            }
            self._url = str(request.url)

    async def post(self, body: dict[str, Any]) -> object:
        """The answer to `body` sent as the noted request, through the SDK's HTTP client.

        Raises the typed error the SDK's exception would have become (`sdk_errors`).
        """
        assert self._url is not None  # only once `ready`
        transport = self._transport
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        try:
            response = await self.http.post(
                self._url, content=content, headers=self._headers, timeout=self._timeout_s
            )
        except transport.TimeoutException as exc:
            raise ProviderTimeoutError(f"no answer within {self._timeout_s:g} s") from exc
        except transport.TransportError as exc:
            base_url = self._url.removesuffix(_PATH.lstrip("/"))
            message = f"connection to {base_url} failed: {exc}"
            raise ConnectionFailedError(redact(message, self._secrets)) from exc
        status, headers, text = response.status_code, response.headers, response.text
        if status >= 400:
            fallback = f"Error code: {status}" + (f" - {text}" if text else "")
            raise status_error(status, headers, error_body(text), fallback, self._secrets)
        return answer_data(headers.get("content-type", "*"), text)
