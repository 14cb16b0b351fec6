"""A 2xx answer without what the target's `output:` names fails at once, never sent again.

A service's request may act (open a ticket, send a mail): the retries a target allows are for
timeouts, 429, 5xx and dropped connections, which say the request may not have been served.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from promptum import Session
from promptum.providers import ClientOptions, MalformedResponseError
from promptum.providers._http_target import json_path
from promptum.values.run_result import CaseResult
from tests.support.cli import write
from tests.support.serving import serving

FAST = {"cache": False, "backoff_base_s": 0.01, "backoff_max_s": 0.05}


@dataclass
class _Service:
    """What the service answers (status and raw body), and how many requests it took."""

    status: int = 200
    body: bytes = b"{}"
    requests: list[str] = field(default_factory=list)


@contextmanager
def _service(status: int, body: bytes) -> Iterator[tuple[str, _Service]]:
    service = _Service(status, body)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            service.requests.append(self.path)
            self.send_response(service.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(service.body)))
            self.end_headers()
            self.wfile.write(service.body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with serving(server):
        yield f"http://127.0.0.1:{server.server_port}/tickets", service


def _result(tmp_path: Path, url: str, retries: str = "") -> CaseResult:
    path = write(
        tmp_path / "suite.yaml",
        f"""\
        target: {{url: "{url}", name: desk, output: $.answer{retries}}}
        test_cases: [{{id: a, query: open a ticket, checks: [{{type: contains, value: x}}]}}]
        """,
    )
    session = Session(client_options=ClientOptions(**FAST))
    session.add_suite(path)
    (result,) = session.run().results
    return result


@pytest.mark.parametrize("retries", ["", ", retries: 2"], ids=["run's retries", "retries: 2"])
def test_a_2xx_answer_without_the_output_is_an_error_at_once(tmp_path: Path, retries: str) -> None:
    answer = json.dumps({"ticket": 7, "status": "open", "meta": {"queue": "q"}}).encode()
    with _service(201, answer) as (url, service):
        result = _result(tmp_path, url, retries)
    assert service.requests == ["/tickets"]  # one ticket opened, not five
    assert result.status == "error"
    assert result.completion.attempts == 1
    assert result.completion.error == (
        "malformed answer: the response has nothing at '$.answer' (stopped at 'answer', "
        "where there is an object with the keys 'ticket', 'status', 'meta')"
    )


def test_a_2xx_answer_that_is_not_json_is_an_error_at_once(tmp_path: Path) -> None:
    with _service(200, b"<html>maintenance</html>") as (url, service):
        result = _result(tmp_path, url, ", retries: 2")
    assert len(service.requests) == 1
    assert result.completion.error == (
        "malformed answer: the response is not JSON, so '$.answer' cannot be read: "
        "'<html>maintenance</html>'"
    )


def test_a_5xx_answer_is_still_retried_as_the_target_allows(tmp_path: Path) -> None:
    with _service(503, b'{"error": {"message": "busy"}}') as (url, service):
        result = _result(tmp_path, url, ", retries: 2")
    assert len(service.requests) == 3
    assert result.completion.error == "server error: HTTP 503: busy (gave up after 3 attempts)"


def test_where_a_path_stops_is_described_briefly() -> None:
    many = {f"key{i}": i for i in range(25)} | {"k" * 100: 0}
    with pytest.raises(MalformedResponseError) as raised:
        json_path({"data": many}, "data.answer")
    message = str(raised.value)
    assert "'key0', 'key1'" in message
    assert "'key9' and 16 more)" in message
    assert "key10" not in message
    assert len(message) < 300
    cases = {
        "$.items[3].text": "(stopped at 3, where there is a list of 2 items)",
        "$.items.0.text.more": "(stopped at 'more', where there is a string)",
        "$.items.0.text[0]": "(stopped at 0, where there is a string)",  # not its letter 'a'
        "$.items.0.text.0": "(stopped at '0', where there is a string)",
        "$.none.x": "(stopped at 'x', where there is null)",
        "$.empty.x": "(stopped at 'x', where there is an empty object)",
    }
    document: dict[str, Any] = {"items": [{"text": "a"}, {"text": "b"}], "none": None, "empty": {}}
    for path, expected in cases.items():
        with pytest.raises(MalformedResponseError) as raised:
            json_path(document, path)
        assert str(raised.value).endswith(expected), str(raised.value)
    long_key = {"x" * 100: 1}
    with pytest.raises(MalformedResponseError) as raised:
        json_path(long_key, "answer")
    assert f"'{'x' * 39}…'" in str(raised.value)
