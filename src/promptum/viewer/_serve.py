"""Serving the viewer with uvicorn."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from promptum.errors import PromptumError
from promptum.store import RunStore
from promptum.viewer._app import LOCAL_HOSTS, create_app
from promptum.viewer._proposals import ReviewFile
from promptum.viewer._review_file import create_review_app
from promptum.viewer._security import WriteAccess

if TYPE_CHECKING:
    from starlette.applications import Starlette

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def require_web_stack() -> None:
    """Raise a clear error when the viewer's optional dependencies are not installed."""
    missing = [name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None]
    if missing:
        raise PromptumError(
            f"promptum view needs {' and '.join(missing)}, which are not installed; "
            "install them with: pip install 'promptum[viewer]'"
        )


def serve(
    store: RunStore,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    access: WriteAccess | None = None,
) -> None:
    """Serve the viewer until interrupted; only loopback unless `host` says otherwise."""
    _run(create_app(store, hosts=_hosts(host), access=access), host, port)


def serve_review(
    review: ReviewFile, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, access: WriteAccess
) -> None:
    """Serve the review of a file of proposed cases until interrupted."""
    _run(create_review_app(review, hosts=_hosts(host), access=access), host, port)


def _hosts(host: str) -> list[str]:
    """The Host names to answer: those this server is reached by, no other (DNS rebinding)."""
    return [*LOCAL_HOSTS] if host in LOCAL_HOSTS else ["*"]


def _run(app: Starlette, host: str, port: int) -> None:
    import uvicorn  # Heavy; imported only when the viewer runs.

    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        server_header=False,
    )
