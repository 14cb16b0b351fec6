"""`promptum run` with a check that is slow or never returns: the run neither waits nor hangs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from promptum.store import RunStore
from tests.support.fault_server import FaultServer, Reply

CHECKS = """\
import time
from pathlib import Path


def slow_on_case_0(response):
    \"\"\"Sleeps far past the deadline on case-0 only.\"\"\"
    if response.case_id == "case-0":
        time.sleep(30)
    return True


def loops_on_case_2(response):
    \"\"\"Never returns on case-2 (a pure-Python loop: no signal reaches into it).\"\"\"
    if response.case_id == "case-2":
        Path("looping").touch()
        while True:
            pass
    return True
"""


def _suite(check: str, count: int) -> str:
    return "models: [fault/m]\ntest_cases:\n" + "".join(
        f"  - {{id: case-{i}, query: question {i}, checks: [{{type: min_length, value: 1}}, "
        f"{{type: python, value: 'checks.py:{check}'}}]}}\n"
        for i in range(count)
    )


def _start(*extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "-o", "run.jsonl", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy(),
    )  # fmt: skip


def _lines(path: Path) -> list[str]:
    """The complete lines of a JSONL report being written."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    return text.splitlines() if text.endswith("\n") else text.splitlines()[:-1]


def _arrivals(process: subprocess.Popen[str], path: Path) -> list[tuple[str, float]]:
    """Each result's case id with when its line appeared in the JSONL report, until the end."""
    began = time.monotonic()
    seen: list[tuple[str, float]] = []
    while True:
        ended = process.poll() is not None
        for line in _lines(path)[len(seen) :]:
            seen.append((json.loads(line)["case_id"], time.monotonic() - began))
        if ended:
            return seen
        assert time.monotonic() - began < 60, "the run did not end"
        time.sleep(0.02)


@pytest.mark.slow
def test_a_slow_check_is_an_error_at_the_deadline_and_the_other_cases_do_not_wait(
    server: FaultServer, project: Path
) -> None:
    Path("suite.yaml").write_text(_suite("slow_on_case_0", 10), encoding="utf-8")
    Path("checks.py").write_text(CHECKS, encoding="utf-8")
    server.default = Reply.ok("an answer")
    process = _start("-c", "4", "--grade-timeout", "5")
    try:
        arrivals = _arrivals(process, Path("run.jsonl"))
        output = process.communicate(timeout=30)[0]
    finally:
        process.kill()
    assert process.returncode == 1, output  # the error fails the gate
    assert "Traceback" not in output
    order = [case_id for case_id, _ in arrivals]
    assert order[-1] == "case-0", order  # planned first, written last: the nine never waited
    assert sorted(order[:-1]) == sorted(f"case-{i}" for i in range(1, 10))
    slow_at = arrivals[-1][1]
    assert all(at < slow_at for _, at in arrivals[:-1])
    assert slow_at < 25  # at the 5 s deadline (plus start-up), not after the check's 30 s

    slow = json.loads(_lines(Path("run.jsonl"))[-1])
    assert slow["status"] == "error"
    error = slow["grades"][1]["error"]
    assert "checks.py:slow_on_case_0 did not finish within the grading deadline of 5 s" in error
    (stored,) = RunStore().list_runs()
    assert (stored.total, stored.passed, stored.errors) == (10, 9, 1)
    assert "1 grading did not finish" in output


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_a_run_whose_check_never_returns(
    server: FaultServer, project: Path, sig: signal.Signals
) -> None:
    Path("suite.yaml").write_text(_suite("loops_on_case_2", 5), encoding="utf-8")
    Path("checks.py").write_text(CHECKS, encoding="utf-8")
    server.default = Reply.ok("an answer")
    process = _start("-c", "1")  # the default deadline (60 s): only the signal can end it soon
    try:
        deadline = time.monotonic() + 60
        while not Path("looping").exists():
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "the run never reached the looping check"
            time.sleep(0.05)
        signalled = time.monotonic()
        process.send_signal(sig)
        output = process.communicate(timeout=30)[0]
        took = time.monotonic() - signalled
    finally:
        process.kill()  # the old code ignores the signal and would loop on
    assert process.returncode == 130, output
    assert took < 20, took  # the grace period for work in flight (5 s), then the exit
    assert "Interrupted: 2 of 5 results finished and were kept" in output
    assert "1 grading did not finish" in output  # its thread was left, not waited for
    assert "Traceback" not in output
    kept = [json.loads(line)["case_id"] for line in _lines(Path("run.jsonl"))]
    assert kept == ["case-0", "case-1"]
    (stored,) = RunStore().list_runs()
    assert (stored.total, stored.state) == (2, "interrupted")
