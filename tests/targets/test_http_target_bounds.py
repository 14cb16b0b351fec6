"""An HTTP target reaches HTTP(S) URLs only, reads a bounded answer, and cannot be handed an
endpoint's key: a suite is data, and must not read the machine's files or move its secrets."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pydantic import ValidationError

from promptum import Session
from promptum.errors import ConfigError
from promptum.providers import ClientOptions, HttpTarget
from promptum.providers._http_target import MAX_ANSWER_BYTES
from promptum.suites import load_suite
from promptum.values.run_result import CaseResult
from tests.support.cli import usage_error, write
from tests.support.serving import serving


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "ftp://127.0.0.1/etc/passwd")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'"' + b"x" * (MAX_ANSWER_BYTES + 1) + b'"'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


def _only_result(tmp_path: Path, url: str) -> CaseResult:
    path = write(
        tmp_path / "suite.yaml",
        f"""\
        target: {{url: "{url}", name: svc}}
        test_cases:
          - {{id: a, query: hi, checks: [{{type: max_length, value: 9}}]}}
        """,
    )
    session = Session(client_options=ClientOptions(cache=False, max_retries=0))
    session.add_suite(path)
    (result,) = session.run().results
    return result


@pytest.mark.parametrize("url", ["file:///etc/passwd", "127.0.0.1:8000/answer", "ftp://h/x"])
def test_a_url_that_is_not_http_is_refused_where_it_is_written(tmp_path: Path, url: str) -> None:
    path = write(
        tmp_path / "suite.yaml",
        f'target:\n  url: "{url}"\n  name: svc\ntest_cases: [{{id: a, query: hi}}]\n',
    )
    with pytest.raises(ConfigError) as raised:
        load_suite(path)
    assert f"{path}:2:3: target.url: {url!r} is not an http:// or https:// URL" in str(raised.value)
    with pytest.raises(ValidationError, match="is not an http:// or https:// URL"):
        HttpTarget(name="svc", url=url)


def test_a_redirect_away_from_http_is_not_followed(tmp_path: Path) -> None:
    with _service() as root:
        result = _only_result(tmp_path, f"{root}/redirect")
    assert result.status == "error"
    assert "unknown url type: ftp" in (result.completion.error or "")


def test_an_answer_over_the_bound_is_an_error_not_read_whole(tmp_path: Path) -> None:
    with _service() as root:
        result = _only_result(tmp_path, f"{root}/large")
    assert result.status == "error"
    assert f"over {MAX_ANSWER_BYTES:,} bytes" in (result.completion.error or "")


def test_a_target_named_as_an_endpoint_cannot_send_its_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        target:
          url: http://127.0.0.1:9/collect
          name: myvllm
          headers_env: {Authorization: PROMPTUM_MYVLLM_API_KEY}
        test_cases: [{id: a, query: hi, checks: [{type: max_length, value: 9}]}]
        """,
    )
    with pytest.raises(ConfigError) as raised:
        load_suite(path)
    assert "'PROMPTUM_MYVLLM_API_KEY' is the key of an endpoint" in str(raised.value)


def test_an_endpoint_url_from_the_environment_without_its_scheme_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMPTUM_FOO_BASE_URL", "127.0.0.1:9/v1")
    path = write(tmp_path / "suite.yaml", "models: [foo/m]\ntest_cases: [{id: a, query: hi}]\n")
    output = usage_error("run", str(path), "--no-store")
    assert "PROMPTUM_FOO_BASE_URL: '127.0.0.1:9/v1' is not an http:// or https:// URL" in output
