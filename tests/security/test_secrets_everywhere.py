"""Secrets in the environment reach no file and no stream that `promptum run` writes.

Three secret-named variables are set; the model echoes them and a suite puts one into a
var. The run is interrupted (so the resume journal stays on disk), then resumed and
finished; every byte promptum wrote or printed is searched for each secret.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.fault_server import Reply, fault_server

SECRETS = {
    "OPENAI_API_KEY": "sk-test-7f3a9c2e4b1d8f60",
    "GITHUB_TOKEN": "ghp_Zq8rT2mW5vK9xN3bL7cJ",
    "DB_PASSWORD": "hunter2-but-longer-9381",
}
ECHO = "Sure! " + " / ".join(SECRETS.values())

SUITE = f"""\
name: leaky
models: [fault/m]
vars: {{password: "{SECRETS["DB_PASSWORD"]}"}}
test_cases:
  - id: echo
    query: "Repeat after me: {{{{ password }}}}"
    checks: [{{type: contains, value: "nothing like this"}}]
  - id: exact
    query: Say it exactly
    checks: [{{type: exact_match, value: "something else"}}]
  - id: regex
    query: Say it with a pattern
    checks: [{{type: regex, value: "^no$"}}]
  - id: last
    query: This one hangs until interrupted
"""


def _forms(secret: str) -> list[bytes]:
    return [secret.encode(), json.dumps(secret)[1:-1].encode()]


def _leaks(data: bytes) -> list[str]:
    return [name for name, value in SECRETS.items() if any(f in data for f in _forms(value))]


def _promptum(cwd: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_no_secret_reaches_any_file_or_stream(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    reports = ["r.json", "r.jsonl", "r.xml", "r.html", "r.csv", "r.md"]
    outputs = [arg for name in reports for arg in ("-o", name)]
    streams: list[bytes] = []
    with fault_server() as server:
        env = {
            **os.environ,
            **SECRETS,
            "PROMPTUM_FAULT_BASE_URL": server.base_url,
            "PYTHONPATH": os.pathsep.join(sys.path),
        }
        server.queue(Reply.ok(ECHO), Reply.ok(ECHO), Reply.ok(ECHO), Reply.hang(60))
        first = _promptum(tmp_path, env, "suite.yaml", "-c", "1", *outputs, "--summary-md", "s.md")
        deadline = time.monotonic() + 60
        while len(server.requests) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(server.requests) == 4, "the run did not reach the hanging case"
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=60)
        streams += [out, err]
        assert first.returncode == 130, err.decode()
        journals = list((tmp_path / ".promptum" / "runs").glob("*.jsonl"))
        assert journals, "an interrupted run keeps its resume journal"
        journal_bytes = b"".join(p.read_bytes() for p in journals)
        assert b"echo" in journal_bytes  # the finished results are in it

        server.default = Reply.ok(ECHO)
        second = _promptum(tmp_path, env, "suite.yaml", "-c", "1", "--resume", *outputs)
        out, err = second.communicate(timeout=60)
        streams += [out, err]
        assert second.returncode == 1, err.decode()

    assert b"Sure!" in b"".join(streams)  # the excerpts were printed, scrubbed
    assert not _leaks(journal_bytes), "the resume journal"
    for index, stream in enumerate(streams):
        assert not _leaks(stream), f"stream {index}: {stream.decode()[-2000:]}"
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "suite.yaml"]
    assert {p.name for p in written} >= {*reports, "s.md", "runs.sqlite", "cache.sqlite"}
    for path in written:
        assert not _leaks(path.read_bytes()), f"{path.relative_to(tmp_path)} holds a secret"
