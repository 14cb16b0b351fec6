"""The header values an HTTP target reads from `headers_env` reach no file and no stream.

Their variables' names need not look secret (``PROMPTUM_SUPPORT_AUTH``), yet they are
credentials: a service that echoes its request headers, in an answer, in an error or in the
keys of an answer that lacks the `output`, must not put them into a report, the run store or
the resume journal. The run is interrupted (so the journal stays on disk), resumed, and every
byte written or printed is searched, as the scheme-less credential and JSON-escaped too.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.security.secret_leaks import (
    REPORT_ARGS,
    REPORTS,
    assert_nothing_leaked,
    interrupted,
    promptum_run,
)
from tests.support.serving import send_json, serving

AUTH = "Bearer supp-SECRET789xyz"
SESSION = "sess-SECRET-abcdef12"
SECRETS = {"auth": AUTH, "token": AUTH.removeprefix("Bearer "), "session": SESSION}
"""The header values, and the credential in the first alone, as a service may echo it."""

SUITE = """\
name: tgt
target:
  url: http://127.0.0.1:{port}/path/answer
  name: support
  headers_env: {{Authorization: PROMPTUM_SUPPORT_AUTH, X-Other: PROMPTUM_SUPPORT_SESSION}}
  body: {{messages: [{{role: user, content: "{{{{ query }}}}"}}]}}
  output: $.answer
test_cases:
  - {{id: headers, query: "HEADERS", checks: [{{type: contains, value: zzz}}]}}
  - {{id: token, query: "TOKEN", checks: [{{type: contains, value: zzz}}]}}
  - {{id: refused, query: "REFUSE", checks: [{{type: contains, value: zzz}}]}}
  - {{id: missing, query: "MISSING", checks: [{{type: contains, value: zzz}}]}}
  - {{id: last, query: "HANG", checks: [{{type: contains, value: zzz}}]}}
"""


@contextmanager
def _echoing_service(release: threading.Event) -> Iterator[tuple[int, list[str]]]:
    """A service echoing the headers it is sent; ``HANG`` waits for `release`."""
    queries: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            query = body["messages"][-1]["content"]
            queries.append(query)
            headers = dict(self.headers)
            token = headers["Authorization"].removeprefix("Bearer ")
            answer: tuple[Any, int] = {
                "HEADERS": ({"answer": json.dumps(headers)}, 200),
                "TOKEN": ({"answer": {"token": token, "session": headers["X-Other"]}}, 200),
                "REFUSE": ({"error": {"message": f"bad {headers['Authorization']}"}}, 401),
                "MISSING": ({token: 1, headers["X-Other"]: 2}, 200),
            }.get(query, ({"answer": "late"}, 200))
            if query == "HANG":
                release.wait(60)
            with suppress(BrokenPipeError, ConnectionResetError):  # the run was stopped
                send_json(self, *answer)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with serving(server):
        yield server.server_port, queries


def test_no_header_secret_reaches_any_file_or_stream(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PROMPTUM_SUPPORT_AUTH": AUTH,
        "PROMPTUM_SUPPORT_SESSION": SESSION,
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    streams: list[bytes] = []
    release = threading.Event()
    with _echoing_service(release) as (port, queries):
        (tmp_path / "t.yaml").write_text(SUITE.format(port=port), encoding="utf-8")
        first = promptum_run(tmp_path, env, "t.yaml", "-c", "1", *REPORT_ARGS)
        deadline = time.monotonic() + 60
        while "HANG" not in queries and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "HANG" in queries, "the run did not reach the hanging case"
        journal = interrupted(first, tmp_path, streams)
        assert b"headers" in journal  # the finished results are in it
        release.set()

        second = promptum_run(tmp_path, env, "t.yaml", "-c", "1", "--resume", *REPORT_ARGS)
        out, err = second.communicate(timeout=60)
        streams += [out, err]
        assert second.returncode == 1, err.decode()

    # Each case reached the service once: MISSING's answer was not retried.
    assert sorted(queries) == sorted(["HEADERS", "TOKEN", "REFUSE", "MISSING", "HANG", "HANG"])
    assert b"[redacted]" in streams[0] + streams[1]  # the echoes were printed, scrubbed
    assert_nothing_leaked(
        tmp_path,
        streams,
        journal,
        {*REPORTS, "runs.sqlite"},
        secrets=SECRETS,
        suite="t.yaml",
        printed=b"[redacted]",
    )
    outcome = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    errors = {r["case_id"]: r["completion"]["error"] for r in outcome["results"]}
    assert errors["missing"].startswith("malformed answer: the response has nothing at")
    assert "'[redacted]'" in errors["missing"]  # the keys it had, named but scrubbed
