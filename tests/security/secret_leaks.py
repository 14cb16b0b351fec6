"""Secrets set in the environment of `promptum run`, and the search for them in what it wrote."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.support.fault_server import FaultServer

SECRETS = {
    "OPENAI_API_KEY": "sk-test-7f3a9c2e4b1d8f60",
    "GITHUB_TOKEN": "ghp_Zq8rT2mW5vK9xN3bL7cJ",
    "DB_PASSWORD": "hunter2-but-longer-9381",
}
ECHO = "Sure! " + " / ".join(SECRETS.values())
"""A model's reply that echoes every secret."""

REPORTS = ["r.json", "r.jsonl", "r.xml", "r.html", "r.csv", "r.md"]
"""A report of each format, written by every run of these tests (`REPORT_ARGS`)."""
REPORT_ARGS = [arg for name in REPORTS for arg in ("-o", name)]


def _forms(secret: str) -> list[bytes]:
    return [secret.encode(), json.dumps(secret)[1:-1].encode()]


def leaks(data: bytes, secrets: Mapping[str, str] = SECRETS) -> list[str]:
    """The names of the `secrets` (name to value) `data` holds, as written or JSON-escaped."""
    return [name for name, value in secrets.items() if any(f in data for f in _forms(value))]


def secret_env(server: FaultServer) -> dict[str, str]:
    """This environment plus the secrets, with `fault/...` models answered by `server`."""
    return {
        **os.environ,
        **SECRETS,
        "PROMPTUM_FAULT_BASE_URL": server.base_url,
        "PYTHONPATH": os.pathsep.join(sys.path),
    }


def promptum_run(cwd: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    """`promptum run ARGS` started in `cwd`, its output piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def interrupted(run: subprocess.Popen[bytes], folder: Path, streams: list[bytes]) -> bytes:
    """Ctrl-C `run` (its output added to `streams`); the resume journal it kept in `folder`."""
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    streams += [out, err]
    assert run.returncode == 130, err.decode()
    journals = list((folder / ".promptum" / "runs").glob("*.jsonl"))
    assert journals, "an interrupted run keeps its resume journal"
    return b"".join(p.read_bytes() for p in journals)


def assert_nothing_leaked(
    folder: Path,
    streams: list[bytes],
    journal: bytes,
    files: set[str],
    *,
    secrets: Mapping[str, str] = SECRETS,
    suite: str = "suite.yaml",
    printed: bytes = b"Sure!",
) -> None:
    """No secret in the streams, the resume journal or a file in `folder` (`files` among them)."""
    assert printed in b"".join(streams)  # the echoes were printed, scrubbed
    assert not leaks(journal, secrets), "the resume journal"
    for index, stream in enumerate(streams):
        assert not leaks(stream, secrets), f"stream {index}: {stream.decode()[-2000:]}"
    written = [p for p in folder.rglob("*") if p.is_file() and p.name != suite]
    assert {p.name for p in written} >= files
    for path in written:
        assert not leaks(path.read_bytes(), secrets), f"{path.relative_to(folder)} holds a secret"
