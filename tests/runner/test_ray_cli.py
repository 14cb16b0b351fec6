"""`promptum run --executor ray` as a user runs it: its own local Ray, SIGTERM, --resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from promptum.reporting import load_run
from tests.support.fault_server import FaultServer, Reply, fault_server

pytest.importorskip("ray")  # the ray extra: skipped without it, run where it is installed

pytestmark = pytest.mark.slow

SUITE = "models: [fault/model-a]\ndefaults: {checks: [{type: contains, value: Hello}]}\n" + (
    "test_cases:\n" + "".join(f"  - {{id: case-{i}, query: question {i}}}\n" for i in range(6))
)


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "promptum", "run", "suite.yaml", "--executor", "ray", *args]


def _environment(server: FaultServer) -> dict[str, str]:
    return {**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url}


def test_a_run_on_ray_records_and_reports_like_a_local_run(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE)
    with fault_server() as server:
        done = subprocess.run(
            _command("-o", "run.json", "--no-cache"),
            cwd=tmp_path, env=_environment(server), capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert run.complete
    assert sorted(r.case_id for r in run.results) == [f"case-{i}" for i in range(6)]
    assert "recorded as run" in done.stdout  # the driver owns the run store


def test_sigterm_stops_a_ray_run_gracefully_and_resume_finishes_it(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE)
    with fault_server() as server:
        server.queue(Reply.ok("Hello one"), Reply.ok("Hello two"))
        server.default = Reply.hang(60)
        running = subprocess.Popen(
            _command("-c", "1", "-o", "run.jsonl", "--no-cache"),
            cwd=tmp_path, env=_environment(server),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        streamed = tmp_path / "run.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
            streamed.exists() and streamed.read_text().count('"case_id"') >= 2
        ):
            time.sleep(0.2)
        running.send_signal(signal.SIGTERM)
        stdout, stderr = running.communicate(timeout=60)
        assert running.returncode == 130, stdout + stderr
        assert "Interrupted:" in stdout
        assert "Traceback" not in stdout + stderr

        server.default = Reply.ok("Hello later")
        resumed = subprocess.run(
            _command("-c", "1", "--resume", "-o", "run.json", "--no-cache"),
            cwd=tmp_path, env=_environment(server), capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    texts = sorted(r.completion.text for r in load_run(tmp_path / "run.json").results)
    assert texts == ["Hello later"] * 4 + ["Hello one", "Hello two"]
