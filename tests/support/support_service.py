"""A small support-bot HTTP service on 127.0.0.1: the application an HTTP target tests.

``POST /answer`` with ``{"question": ...}`` answers ``{"answer": {"text": ..., "source":
...}}`` from a two-line knowledge base; it needs ``Authorization: Bearer <token>`` when a
token is set, answers 500 to ``{"question": "crash"}`` and never answers ``"hang"``.
Every request (path, headers, body) is kept in ``service.requests``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.serving import send_json, serving

KNOWLEDGE = {
    "refund": "Refunds are paid within 14 days of the return.",
    "shipping": "Orders ship within 2 working days.",
}


@dataclass
class SupportService:
    """The running service: its URL and what it received."""

    url: str
    token: str | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)


def _handler(service: SupportService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: object) -> None:
            # The client may have given up (the timeout tests): nothing to answer.
            with suppress(BrokenPipeError, ConnectionResetError):
                send_json(self, body, status)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            service.requests.append(
                {"path": self.path, "headers": dict(self.headers), "body": body}
            )
            if service.token and self.headers.get("Authorization") != f"Bearer {service.token}":
                self._reply(401, {"error": {"message": "bad token"}})
                return
            question = str(body.get("question", ""))
            if question == "crash":
                self._reply(500, {"error": {"message": "the bot crashed"}})
                return
            if question == "hang":
                time.sleep(10)
            topic = next((t for t in KNOWLEDGE if t in question.lower()), None)
            text = KNOWLEDGE[topic] if topic else "Sorry, I do not know."
            self._reply(200, {"answer": {"text": text, "source": topic}})

    return Handler


@contextmanager
def support_service(token: str | None = None) -> Iterator[SupportService]:
    """Serve the bot on a free port of 127.0.0.1 for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(SupportService("", token)))
    service = SupportService(f"http://127.0.0.1:{server.server_port}/answer", token)
    server.RequestHandlerClass = _handler(service)
    server.daemon_threads = True
    with serving(server):
        yield service
