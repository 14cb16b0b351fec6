"""Serving a test's HTTP server on 127.0.0.1 in the background, and answering in JSON."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[None]:
    """Serve `server` on a daemon thread for the block's length, then shut and close it."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def send_json(handler: BaseHTTPRequestHandler, body: object, status: int = 200) -> None:
    """Answer the handler's request with `body` as JSON, its length stated."""
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
