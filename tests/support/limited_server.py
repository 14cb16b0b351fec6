"""An OpenAI- and Anthropic-compatible asyncio server on 127.0.0.1 with per-minute rate limits.

It enforces requests per minute and tokens per minute as token buckets (refilled evenly,
holding `burst_s` seconds of the limit, as providers enforce a minute's limit over shorter
spans), answers past either limit with HTTP 429 and a ``retry-after`` in whole seconds,
sends the providers' own rate-limit headers on every answer (``x-ratelimit-*`` on
``/v1/chat/completions``, ``anthropic-ratelimit-*`` on ``/v1/messages``; ``headers=False``
sends none, as many proxies do), and counts what it was asked::

    with limited_server(rpm=1200, tpm=100_000) as server:
        ...  # point an endpoint at server.base_url (OpenAI) or server.root_url (Anthropic)
        assert server.counts.limited == 0

A call costs its prompt tokens (a quarter of its messages' characters, plus 4 per message)
and its answer's tokens, charged when it is admitted. A request asking for a response schema
with a ``score`` (a judge's) gets a verdict; any other gets `REPLY`.

Run ``python -m tests.support.limited_server --rpm 600 --tpm 60000`` to serve from another
process (it prints ``READY <root_url>``; ``GET /stats`` answers the counts as JSON):
benchmarks do, so the server does not share their GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

REPLY = "The answer is 42, as the question asked."
VERDICT = json.dumps({"score": 10, "reason": "It does what was asked."})


@dataclass(slots=True)
class Bucket:
    """`per_minute` units a minute, refilled evenly, holding at most `burst_s` seconds' worth."""

    per_minute: float
    burst_s: float
    level: float = 0.0
    stamp: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.level = self.capacity

    @property
    def capacity(self) -> float:
        """The most the bucket holds."""
        return self.per_minute / 60 * self.burst_s

    def refill(self, now: float) -> None:
        """Add what the time since the last refill earned."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.per_minute / 60)
        self.stamp = now

    def shortfall_s(self, amount: float) -> float:
        """Seconds until `amount` fits (0: it fits now); a cost above capacity needs it full."""
        missing = min(amount, self.capacity) - self.level
        return max(missing, 0.0) / (self.per_minute / 60)

    def full_in_s(self) -> float:
        """Seconds until the bucket is full again."""
        return (self.capacity - self.level) / (self.per_minute / 60)


@dataclass(slots=True)
class Counts:
    """What the server was asked: calls, those answered 429, and calls per model."""

    requests: int = 0
    limited: int = 0
    answered: int = 0
    tokens: int = 0
    """Tokens charged to the calls answered."""
    by_model: Counter[str] = field(default_factory=Counter)
    """Answered calls per model named in the request."""

    def as_json(self) -> dict[str, Any]:
        """The counts as JSON (``GET /stats``)."""
        return {
            "requests": self.requests,
            "limited": self.limited,
            "answered": self.answered,
            "tokens": self.tokens,
            "by_model": dict(self.by_model),
        }


@dataclass(slots=True)
class LimitedServer:
    """The server's limits, its buckets and its counts; `root_url` once it listens."""

    rpm: int
    tpm: int
    burst_s: float = 1.0
    latency_s: float = 0.0
    """How long each answer takes after the call is admitted (a 429 comes at once)."""
    headers: bool = True
    root_url: str = ""
    counts: Counts = field(default_factory=Counts)
    requests_bucket: Bucket = field(init=False)
    tokens_bucket: Bucket = field(init=False)

    def __post_init__(self) -> None:
        self.requests_bucket = Bucket(self.rpm, self.burst_s)
        self.tokens_bucket = Bucket(self.tpm, self.burst_s)

    @property
    def base_url(self) -> str:
        """The OpenAI-style API root (``.../v1``)."""
        return self.root_url + "/v1"

    def admit(self, tokens: int) -> float:
        """Charge one call of `tokens` if both buckets allow it: 0.0, else seconds to wait."""
        now = time.monotonic()
        self.requests_bucket.refill(now)
        self.tokens_bucket.refill(now)
        wait = max(self.requests_bucket.shortfall_s(1), self.tokens_bucket.shortfall_s(tokens))
        if wait > 0:
            return wait
        self.requests_bucket.level -= 1
        self.tokens_bucket.level -= tokens
        return 0.0

    def limit_headers(self, anthropic: bool) -> dict[str, str]:
        """The rate-limit headers as the provider of the route names them."""
        if not self.headers:
            return {}
        name, reset = (_anthropic_name, _instant) if anthropic else (_openai_name, _duration)
        headers: dict[str, str] = {}
        for kind, limit, bucket in (
            ("requests", self.rpm, self.requests_bucket),
            ("tokens", self.tpm, self.tokens_bucket),
        ):
            headers[name(kind, "limit")] = str(limit)
            headers[name(kind, "remaining")] = str(max(int(bucket.level), 0))
            headers[name(kind, "reset")] = reset(bucket.full_in_s())
        return headers


def _anthropic_name(kind: str, part: str) -> str:
    """Anthropic's header for one part (limit, remaining, reset) of a kind of limit."""
    return f"anthropic-ratelimit-{kind}-{part}"


def _openai_name(kind: str, part: str) -> str:
    """OpenAI's header for one part (limit, remaining, reset) of a kind of limit."""
    return f"x-ratelimit-{part}-{kind}"


def _instant(seconds: float) -> str:
    """The moment `seconds` from now, as Anthropic writes it (RFC 3339, UTC)."""
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _duration(seconds: float) -> str:
    """A span as OpenAI writes it: ``120ms``, ``1.5s``, ``2m0.5s``."""
    if seconds < 1:
        return f"{math.ceil(seconds * 1000)}ms"
    minutes, rest = divmod(seconds, 60)
    return f"{int(minutes)}m{rest:.3g}s" if minutes else f"{rest:.3g}s"


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def prompt_tokens(body: dict[str, Any]) -> int:
    """The server's count of a request's prompt: a quarter of its characters, 4 per message."""
    messages = body.get("messages", [])
    system = body.get("system")
    texts = [str(m.get("content") or "") for m in messages] + ([str(system)] if system else [])
    return sum(_tokens(text) + 4 for text in texts)


def _wants_verdict(body: dict[str, Any]) -> bool:
    """Whether the request asks for a judge's verdict (a schema with a ``score``)."""
    text = json.dumps(body.get("response_format") or body.get("tools") or {})
    return '"score"' in text


def _openai_answer(body: dict[str, Any], text: str, prompt: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-limited",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "limited"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": _tokens(text),
            "total_tokens": prompt + _tokens(text),
        },
    }


def _anthropic_answer(body: dict[str, Any], text: str, prompt: int) -> dict[str, Any]:
    tool = (body.get("tool_choice") or {}).get("name")
    content = (
        [{"type": "tool_use", "id": "toolu_limited", "name": tool, "input": json.loads(text)}]
        if tool
        else [{"type": "text", "text": text}]
    )
    return {
        "id": "msg_limited",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "limited"),
        "content": content,
        "stop_reason": "tool_use" if tool else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": _tokens(text)},
    }


def _http(status: int, payload: object, headers: dict[str, str]) -> bytes:
    return http_answer(status, json.dumps(payload).encode(), headers)


def http_answer(
    status: int, data: bytes, headers: dict[str, str], content_type: str = "application/json"
) -> bytes:
    """A whole HTTP/1.1 answer: status line, headers (its length stated) and `data`."""
    lines = [
        f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(data)}",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request as the server read it: method, path, headers (lower-case names), body."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Handler = Callable[[HttpRequest], Awaitable[bytes]]
"""Turns a request into the whole HTTP answer (`http_answer`)."""


async def reply(server: LimitedServer, path: str, raw: bytes) -> bytes:
    """The whole HTTP answer to one request of a chat completion or message (or ``/stats``)."""
    if path.endswith("/stats"):
        return _http(200, server.counts.as_json(), {})
    body = json.loads(raw or b"{}")
    anthropic = path.rstrip("/").endswith("/messages")
    text = VERDICT if _wants_verdict(body) else REPLY
    prompt = prompt_tokens(body)
    cost = prompt + _tokens(text)
    server.counts.requests += 1
    wait = server.admit(cost)
    if wait > 0:
        server.counts.limited += 1
        headers = {**server.limit_headers(anthropic), "retry-after": str(math.ceil(wait))}
        error = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
        return _http(429, error, headers)
    headers = server.limit_headers(anthropic)
    server.counts.answered += 1
    server.counts.tokens += cost
    server.counts.by_model[str(body.get("model"))] += 1
    if server.latency_s:
        await asyncio.sleep(server.latency_s)
    return _http(200, answer_of(body, anthropic), headers)


def answer_of(body: dict[str, Any], anthropic: bool) -> dict[str, Any]:
    """The answer a request's body gets: a verdict if it asks for one, else `REPLY`."""
    text = VERDICT if _wants_verdict(body) else REPLY
    return (_anthropic_answer if anthropic else _openai_answer)(body, text, prompt_tokens(body))


async def _connection(
    handler: Handler, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Answer every request of one keep-alive connection, in turn."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path = [*lines[0].split(" "), "/"][:2]
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length") or 0)
            raw = await reader.readexactly(length) if length else b""
            writer.write(await handler(HttpRequest(method, path, headers, raw)))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def serve(
    server: LimitedServer, ready: threading.Event | None = None, handler: Handler | None = None
) -> None:
    """Listen on a free port of 127.0.0.1 until cancelled; `server.root_url` says where.

    `handler` answers each request; by default `reply`, the limited chat API.
    """

    async def limited(request: HttpRequest) -> bytes:
        return await reply(server, request.path, request.body)

    answer = handler or limited
    listening = await asyncio.start_server(
        lambda r, w: _connection(answer, r, w), "127.0.0.1", 0, backlog=1024
    )
    port = listening.sockets[0].getsockname()[1]
    server.root_url = f"http://127.0.0.1:{port}"
    if ready is not None:
        ready.set()
    async with listening:
        await listening.serve_forever()


@contextmanager
def limited_server(
    rpm: int,
    tpm: int,
    *,
    burst_s: float = 1.0,
    latency_s: float = 0.0,
    headers: bool = True,
) -> Iterator[LimitedServer]:
    """Serve with these limits on an event loop of its own thread until the block ends."""
    server = LimitedServer(rpm, tpm, burst_s=burst_s, latency_s=latency_s, headers=headers)
    with in_thread(server):
        yield server


@contextmanager
def in_thread(server: LimitedServer, handler: Handler | None = None) -> Iterator[None]:
    """Serve `server` (answering with `handler`) on an event loop of its own thread."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    task: list[asyncio.Task[None]] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        task.append(loop.create_task(serve(server, ready, handler)))
        try:
            loop.run_until_complete(task[0])
        except asyncio.CancelledError:
            pass
        finally:
            loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield
    finally:
        loop.call_soon_threadsafe(task[0].cancel)
        thread.join(10)


def main() -> None:
    """Serve until killed, printing ``READY <root_url>`` once listening."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rpm", type=int, required=True)
    parser.add_argument("--tpm", type=int, required=True)
    parser.add_argument("--burst-s", type=float, default=1.0)
    parser.add_argument("--latency-s", type=float, default=0.0)
    parser.add_argument("--no-headers", action="store_true")
    args = parser.parse_args()
    server = LimitedServer(
        args.rpm,
        args.tpm,
        burst_s=args.burst_s,
        latency_s=args.latency_s,
        headers=not args.no_headers,
    )

    async def announce() -> None:
        ready = threading.Event()
        serving = asyncio.create_task(serve(server, ready))
        while not ready.is_set():
            await asyncio.sleep(0.01)
        print(f"READY {server.root_url}", flush=True)
        await serving

    asyncio.run(announce())


if __name__ == "__main__":
    main()
