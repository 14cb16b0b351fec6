"""Who may write through the viewer: a request of its own page, carrying the start token.

A browser sends another site's requests to 127.0.0.1 too (with the reviewer's network
position, not their cookies). Four independent locks keep such a page from writing: the
token printed at start (a page elsewhere cannot read it), a JSON body (a cross-site form
cannot send one, and a script's cross-origin JSON POST needs a preflight this server never
grants), the Origin and Sec-Fetch-Site a browser adds (another origin is refused even with
the token) and the Host check of the app (DNS rebinding).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.requests import Request

TOKEN_HEADER = "X-Promptum-Token"
MAX_BODY = 64 * 1024
"""Bytes a write's JSON body may hold: a review's comment is 4000 characters at most."""


def _new_token() -> str:
    """A fresh token for one viewer process."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class WriteAccess:
    """The viewer's review mode: who writes, and the token a write must carry."""

    reviewer: str
    token: str = field(default_factory=_new_token, repr=False)


class RefusedError(Exception):
    """A write refused before anything is read or written: the status and the reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _own_origin(request: Request) -> str:
    """The origin the viewer's own pages have: the scheme and the Host they were asked at."""
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


def check_write(request: Request, access: WriteAccess | None) -> WriteAccess:
    """The viewer's write access; `RefusedError` unless `request` may write (see the module)."""
    if access is None:
        raise RefusedError(
            403, "this viewer is read-only; start it with `promptum view --review` to write"
        )
    given = request.headers.get(TOKEN_HEADER, "")
    if not hmac.compare_digest(given.encode(), access.token.encode()):
        what = "a wrong" if given else "no"
        raise RefusedError(
            403,
            f"{what} {TOKEN_HEADER} header: a write needs the token `promptum view --review` "
            "printed when it started (the viewer's own pages send it)",
        )
    _check_origin(request)
    _check_body(request)
    return access


def _check_origin(request: Request) -> None:
    """`RefusedError` when the browser says the request comes from another origin or site."""
    origin = request.headers.get("origin")
    if origin is not None and origin != _own_origin(request):
        raise RefusedError(403, f"a write from another origin ({origin}) is refused")
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        raise RefusedError(
            403, f"a write from another site (Sec-Fetch-Site: {fetch_site}) is refused"
        )


def _check_body(request: Request) -> None:
    """`RefusedError` unless the body is said to be JSON of at most `MAX_BODY` bytes."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RefusedError(415, "a write's body must be JSON (Content-Type: application/json)")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RefusedError(413, f"a write's body holds at most {MAX_BODY} bytes")
