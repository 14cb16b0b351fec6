"""The typed errors a provider raises for one failed call.

These never reach the user as exceptions: `ModelClient` retries the retryable ones and turns
the last one into `Completion.error`. A provider maps its SDK's exceptions onto this tree::

    ProviderError                 one call failed; ``retryable`` says whether to try again
    ├── RateLimitError            HTTP 429; ``retry_after`` from the Retry-After header
    ├── ServerError               HTTP 5xx
    ├── ProviderTimeoutError      no answer within the per-call timeout
    ├── ConnectionFailedError     refused or dropped connection, truncated body
    ├── MalformedResponseError    an answer that is not the protocol (non-JSON, no choices)
    │   └── UnusableAnswerError   a target's 2xx answer without what it should hold: fails fast
    ├── AuthError                 HTTP 401 / 403: fails fast
    └── BadRequestError           HTTP 400 / 404 / 422 and other 4xx: fails fast
"""

from __future__ import annotations

from typing import ClassVar


class ProviderError(Exception):
    """One provider call failed; the message is one line a person can act on.

    Each kind states, as it is declared, whether a call failing so is worth another try
    and how the response's error line names it (``rate limited: HTTP 429: ...``).
    """

    retryable: ClassVar[bool] = False
    label: ClassVar[str] = "call failed"

    def __init_subclass__(cls, *, retryable: bool | None = None, label: str | None = None) -> None:
        super().__init_subclass__()
        if retryable is not None:
            cls.retryable = retryable
        if label is not None:
            cls.label = label

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        """Seconds the server asked us to wait before the next attempt, if it said."""


class RateLimitError(ProviderError, retryable=True, label="rate limited"):
    """The provider answered 429 Too Many Requests."""


class ServerError(ProviderError, retryable=True, label="server error"):
    """The provider answered with a 5xx status."""


class ProviderTimeoutError(ProviderError, retryable=True, label="timed out"):
    """The call did not finish within the per-call timeout."""


class ConnectionFailedError(ProviderError, retryable=True, label="connection failed"):
    """The connection was refused or dropped before a whole answer arrived."""


class MalformedResponseError(ProviderError, retryable=True, label="malformed answer"):
    """The answer arrived but is not what the protocol promises (often a proxy's error page)."""


class UnusableAnswerError(MalformedResponseError, retryable=False):
    """A target's successful (2xx) answer that does not hold what the target's ``output`` names.

    Not retried, unlike a model's malformed answer: the service did take the request, and a
    service's requests may act (open a ticket, send a mail), so sending it again could act
    twice; a service answering 2xx in the wrong shape answers so again anyway.
    """


class AuthError(ProviderError, label="authentication failed"):
    """The provider refused the credentials (401) or the permission (403)."""


class BadRequestError(ProviderError, label="request rejected"):
    """The provider rejected the request itself; sending it again would not help."""


def error_for_status(status: int, message: str, retry_after: float | None) -> ProviderError:
    """The typed error for an HTTP error status, keeping the provider's own message."""
    text = f"HTTP {status}: {message}"
    if status == 429:
        return RateLimitError(text, retry_after=retry_after)
    if status in (401, 403):
        return AuthError(text)
    if status == 408:
        return ProviderTimeoutError(text, retry_after=retry_after)
    if status >= 500:
        return ServerError(text, retry_after=retry_after)
    return BadRequestError(text)
