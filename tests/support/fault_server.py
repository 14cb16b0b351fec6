"""A tiny OpenAI- and Anthropic-compatible HTTP server that misbehaves on request.

Use it as a context manager; queue the replies the next requests get, in order (once the
queue is empty every request gets ``server.default``, a normal answer)::

    from tests.support.fault_server import Reply, fault_server

    with fault_server() as server:
        server.queue(Reply.rate_limited(retry_after="0"), Reply.error(503), Reply.ok("hi"))
        client = ModelClient(ClientOptions(endpoints={
            "faulty": EndpointConfig(base_url=server.base_url),
        }))
        ...  # "faulty/any-model" now retries twice and answers "hi"
        assert len(server.requests) == 3

Routes: ``POST /v1/chat/completions`` (OpenAI), ``POST /v1/messages`` (Anthropic; point the
SDK at ``server.root_url``), ``POST /v1/embeddings`` (OpenAI; each input's vector is
`embedding_of` it: shared words make texts similar), ``GET /v1/models``. Replies:
`Reply.ok`, `Reply.error` (any HTTP error, with an optional ``Retry-After``),
`Reply.rate_limited`, `Reply.hang` (no answer until the client gives up), `Reply.drop`
(connection closed without an answer),
`Reply.echo` (the request's system message), `Reply.truncated` (body cut short),
`Reply.not_json` (an HTML page), `Reply.bad_json`
(``application/json`` that is not JSON), `Reply.empty_choices` and `Reply.tool_call` (an
OpenAI answer calling a tool). With ``server.strict_tools``, a request whose assistant tool
calls are not answered by tool messages gets OpenAI's HTTP 400.

Run ``python -m tests.support.fault_server`` to serve normal answers from another process (it
prints ``READY <base_url>``): benchmarks use that so the server does not share their GIL.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

Kind = Literal[
    "ok",
    "status",
    "hang",
    "drop",
    "truncated",
    "not_json",
    "bad_json",
    "empty_choices",
    "echo",
    "tool_call",
]


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer of the fault server."""

    kind: Kind = "ok"
    text: str = "Hello from the fault server."
    status: int = 200
    retry_after: str | None = None
    message: str = "scripted failure"
    hang_s: float = 30.0

    @classmethod
    def ok(cls, text: str = "Hello from the fault server.") -> Reply:
        """A normal answer with this text (for Anthropic tool calls, text is the JSON input)."""
        return cls("ok", text=text)

    @classmethod
    def echo(cls) -> Reply:
        """A normal answer repeating the request's system message: a model that leaks it."""
        return cls("echo")

    @classmethod
    def error(cls, status: int, message: str = "", retry_after: str | None = None) -> Reply:
        """An HTTP error with a JSON error body, and a Retry-After header if given."""
        return cls(
            "status",
            status=status,
            message=message or f"scripted {status}",
            retry_after=retry_after,
        )

    @classmethod
    def rate_limited(cls, retry_after: str | None = "0") -> Reply:
        """HTTP 429 with ``Retry-After`` (seconds or an HTTP date; None for no header)."""
        return cls.error(429, "Rate limit reached, slow down", retry_after)

    @classmethod
    def hang(cls, seconds: float = 30.0) -> Reply:
        """Say nothing for ``seconds`` (or until the server stops), then close."""
        return cls("hang", hang_s=seconds)

    @classmethod
    def drop(cls) -> Reply:
        """Close the connection without sending anything."""
        return cls("drop")

    @classmethod
    def truncated(cls) -> Reply:
        """Announce a longer body than is sent, then close mid-body."""
        return cls("truncated")

    @classmethod
    def not_json(cls) -> Reply:
        """HTTP 200 with an HTML page, as a misconfigured proxy sends."""
        return cls("not_json")

    @classmethod
    def bad_json(cls) -> Reply:
        """HTTP 200 claiming ``application/json`` with a body that does not parse."""
        return cls("bad_json")

    @classmethod
    def tool_call(cls, name: str, arguments: str = "{}", text: str = "") -> Reply:
        """An OpenAI answer calling tool `name` with these JSON arguments (and this text)."""
        return cls("tool_call", text=text, message=f"{name}\n{arguments}")

    @classmethod
    def empty_choices(cls) -> Reply:
        """A well-formed chat completion whose choice list is empty."""
        return cls("empty_choices")


TRANSIENT_FAULTS = (
    Reply.rate_limited(retry_after="0"),
    Reply.error(500),
    Reply.error(503),
    Reply.drop(),
    Reply.truncated(),
    Reply.not_json(),
    Reply.bad_json(),
    Reply.empty_choices(),
    Reply.hang(5),
)
"""Every fault a retry may get past: a passing outage or a bad answer."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: dict[str, Any]


@dataclass
class FaultServer:
    """The running server: where it is, what it will answer, what it was asked."""

    root_url: str
    default: Reply = field(default_factory=Reply.ok)
    requests: list[Recorded] = field(default_factory=list)
    _replies: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)
    strict_tools: bool = False
    """Refuse, as OpenAI does (HTTP 400), a request where an assistant message's tool call
    is not answered by a ``tool`` message carrying its id."""

    @property
    def base_url(self) -> str:
        """The OpenAI-style API root (``.../v1``)."""
        return self.root_url + "/v1"

    def queue(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order."""
        with self._lock:
            self._replies.extend(replies)

    def _next(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            return self._replies.popleft() if self._replies else self.default


def _words(text: str) -> int:
    return len(text.split())


def unanswered_tool_calls(body: dict[str, Any]) -> list[str]:
    """The ids of the assistant's tool calls no ``tool`` message right after it answers."""
    messages = body.get("messages", [])
    missing: list[str] = []
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") or [] if message.get("role") == "assistant" else []
        answered = set()
        for after in messages[index + 1 :]:
            if after.get("role") != "tool":
                break
            answered.add(after.get("tool_call_id"))
        missing += [str(call.get("id")) for call in calls if call.get("id") not in answered]
    return missing


def _openai_answer(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.kind == "tool_call":
        name, arguments = reply.message.split("\n", 1)
        message["tool_calls"] = [
            {
                "id": f"call_{zlib.crc32(prompt.encode()):08x}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    choices = (
        []
        if reply.kind == "empty_choices"
        else [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.kind == "tool_call" else "stop",
            }
        ]
    )
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fault"),
        "choices": choices,
        "usage": {
            "prompt_tokens": _words(prompt),
            "completion_tokens": _words(reply.text),
            "total_tokens": _words(prompt) + _words(reply.text),
        },
    }


def _anthropic_answer(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    prompt = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    tool = (body.get("tool_choice") or {}).get("name")
    content: list[dict[str, Any]] = (
        [{"type": "tool_use", "id": "toolu_fault", "name": tool, "input": json.loads(reply.text)}]
        if tool
        else [{"type": "text", "text": reply.text}]
    )
    return {
        "id": "msg_fault",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fault"),
        "content": [] if reply.kind == "empty_choices" else content,
        "stop_reason": "tool_use" if tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": _words(prompt), "output_tokens": _words(reply.text)},
    }


EMBEDDING_SIZE = 64


def embedding_of(text: str) -> list[float]:
    """The fault server's embedding of ``text``: its lower-cased words hashed into 64 counts."""
    counts = [0.0] * EMBEDDING_SIZE
    for word in text.lower().split():
        counts[zlib.crc32(word.encode()) % EMBEDDING_SIZE] += 1.0
    norm = math.sqrt(sum(c * c for c in counts)) or 1.0
    return [c / norm for c in counts]


def _embeddings_answer(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    inputs = body.get("input", [])
    texts = [inputs] if isinstance(inputs, str) else [str(text) for text in inputs]
    data = (
        []
        if reply.kind == "empty_choices"
        else [
            {"object": "embedding", "index": i, "embedding": embedding_of(text)}
            for i, text in enumerate(texts)
        ]
    )
    tokens = sum(_words(text) for text in texts)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "fault"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tests read `FaultServer.requests` instead."""

    def _send(self, status: int, payload: bytes, content_type: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        """List one model, like ``GET /v1/models``."""
        listing = {"object": "list", "data": [{"id": "fault", "object": "model"}]}
        self._send(200, json.dumps(listing).encode(), "application/json")

    def do_POST(self) -> None:
        """Answer a chat, messages or embeddings call with the next scripted reply."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            body = {}
        state = self.server.state
        headers = {name.lower(): value for name, value in self.headers.items()}
        reply = state._next(Recorded(self.path, headers, body))
        if reply.kind == "echo":
            system = [m for m in body.get("messages", []) if m.get("role") == "system"]
            reply = Reply.ok(str(system[0].get("content", "")) if system else "")
        anthropic = self.path.rstrip("/").endswith("/messages")
        if reply.kind == "hang":
            state._closing.wait(reply.hang_s)
            self.close_connection = True
            return
        if reply.kind == "drop":
            self.close_connection = True
            return
        missing = unanswered_tool_calls(body) if state.strict_tools and not anthropic else []
        if missing:  # OpenAI's own words
            reply = Reply.error(
                400,
                "An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(missing)}",
            )
        if reply.kind == "status":
            error = {"type": "error", "error": {"type": "scripted", "message": reply.message}}
            extra = {"Retry-After": reply.retry_after} if reply.retry_after is not None else {}
            self._send(reply.status, json.dumps(error).encode(), "application/json", **extra)
            return
        if reply.kind == "not_json":
            page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self._send(200, page, "text/html")
            return
        if reply.kind == "bad_json":
            self._send(200, b'{"id": "chatcmpl-fault", "choices": [', "application/json")
            return
        if self.path.rstrip("/").endswith("/embeddings"):
            answer = _embeddings_answer(reply, body)
        else:
            answer = (_anthropic_answer if anthropic else _openai_answer)(reply, body)
        payload = json.dumps(answer).encode()
        if reply.kind == "truncated":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload) + 100))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.close_connection = True
            return
        self._send(200, payload, "application/json")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: FaultServer


@contextmanager
def fault_server() -> Iterator[FaultServer]:
    """Serve on a free port of 127.0.0.1 in a background thread until the block ends."""
    server = _Server(("127.0.0.1", 0), _Handler)
    host, port = server.server_address[:2]
    state = FaultServer(root_url=f"http://{host!s}:{port}")
    server.state = state
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state._closing.set()  # release hanging handlers
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def project_fault_server(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultServer]:
    """A fault server answering `fault/...` models for runs in `folder`, made the working
    folder, whose run store is `folder/runs.db`."""
    monkeypatch.chdir(folder)
    monkeypatch.setenv("PROMPTUM_DB", str(folder / "runs.db"))
    with fault_server() as running:
        monkeypatch.setenv("PROMPTUM_FAULT_BASE_URL", running.base_url)
        yield running


def main() -> None:
    """Serve normal answers until killed, printing ``READY <base_url>`` once listening."""
    with fault_server() as state:
        print(f"READY {state.base_url}", flush=True)
        with suppress(KeyboardInterrupt):
            threading.Event().wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
