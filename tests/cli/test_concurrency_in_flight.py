"""`--concurrency N` is what a run gets (counted at the server) unless the user set less."""

from __future__ import annotations

import json
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from promptum.cli import main

_ANSWER = json.dumps(
    {
        "id": "chatcmpl-count",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hello"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()


class _Counter:
    """Calls in flight at the server now, and the most there ever were.

    Each call is held until `hold` calls are in flight at once (or `wait_s` has passed), so
    a run that sends that many is seen with that many, however slowly the machine runs.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.hold = 1
        self.wait_s = 5.0
        self.full = threading.Event()


class _HoldingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _CountingServer

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""

    def do_POST(self) -> None:
        """Answer a chat call once `hold` calls are in flight (or after `wait_s`)."""
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        counter = self.server.counter
        with counter.lock:
            counter.now += 1
            counter.most = max(counter.most, counter.now)
            if counter.now >= counter.hold:
                counter.full.set()
        counter.full.wait(counter.wait_s)
        with counter.lock:
            counter.now -= 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(_ANSWER)))
        self.end_headers()
        self.wfile.write(_ANSWER)


class _CountingServer(ThreadingHTTPServer):
    daemon_threads = True
    counter: _Counter


@pytest.fixture
def counting_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[_Counter]:
    """An OpenAI-compatible server that `openai/...` ids reach; yields its counter."""
    monkeypatch.chdir(tmp_path)
    server = _CountingServer(("127.0.0.1", 0), _HoldingHandler)
    server.counter = _Counter()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://{host!s}:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    try:
        yield server.counter
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _suite(cases: int, endpoints: str = "") -> Path:
    graded = "checks: [{type: min_length, value: 1}]"  # else each is an error: nothing graded
    lines = [f"  - {{id: c{index}, query: q{index}, {graded}}}" for index in range(cases)]
    path = Path("suite.yaml")
    text = f"name: wide\nmodels: [openai/m]\n{endpoints}test_cases:\n" + "\n".join(lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, ["run", *args, "--no-cache"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_builtin_provider_gets_all_the_requested_concurrency(counting_server: _Counter) -> None:
    counting_server.hold = 16  # fewer would each wait the full 5 s, and the test fails
    out = _run(str(_suite(32)), "-c", "16")
    assert counting_server.most == 16
    assert "requested" not in out


def test_a_limit_the_user_set_caps_it_and_the_summary_says_so(counting_server: _Counter) -> None:
    # One call more than the limit is what the server waits for; it must never come.
    counting_server.hold, counting_server.wait_s = 5, 0.5
    endpoints = textwrap.dedent("""\
        endpoints:
          openai: {max_concurrency: 4}
        """)
    out = _run(str(_suite(8, endpoints)), "-c", "16")
    assert counting_server.most == 4
    line = (
        "concurrency 16 requested; endpoint `openai` allows 4 calls at once (its max_concurrency)"
    )
    assert out.count(line) == 1
    assert out.index("results in") < out.index(line)  # after the summary
