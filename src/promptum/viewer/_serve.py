"""Serving the viewer with uvicorn."""

from __future__ import annotations

import importlib.util

from promptum.errors import PromptumError
from promptum.store import RunStore
from promptum.viewer._app import LOCAL_HOSTS, create_app
from promptum.viewer._security import WriteAccess

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
    import uvicorn  # Heavy; imported only when the viewer runs.

    # Answer to the names this server is reached by, and to no other Host (DNS rebinding).
    hosts = [*LOCAL_HOSTS] if host in LOCAL_HOSTS else ["*"]
    uvicorn.run(
        create_app(store, hosts=hosts, access=access),
        host=host,
        port=port,
        log_level="warning",
        server_header=False,
    )
