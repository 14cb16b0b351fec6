"""Ctrl-C and SIGTERM on `promptum run`: results kept, reports marked, resume repeats nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run
from tests.support.fault_server import FaultServer, Reply
from tests.support.interrupts import interrupt_twice, wait_for_requests

SUITE = "models: [fault/m]\ntest_cases:\n" + "".join(
    f"  - {{id: case-{i}, query: question {i}, checks: [{{type: min_length, value: 1}}]}}\n"
    for i in range(5)
)


def start_run(*extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "-c", "1",
         "-o", "run.jsonl", "-o", "run.json", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy(),
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_keeps_finished_results_and_resume_finishes_the_run(
    server: FaultServer, sig: signal.Signals
) -> None:
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    server.queue(Reply.ok("first"), Reply.ok("second"))
    server.default = Reply.hang(60)
    process = start_run()
    wait_for_requests(server, 3, process)  # two answered, the third hangs
    process.send_signal(sig)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130, output
    assert "Interrupted: 2 of 5 results finished and were kept" in output
    assert "--resume" in output
    assert "Traceback" not in output

    lines = Path("run.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["completion"]["text"] for line in lines] == ["first", "second"]
    interrupted = load_run(Path("run.json"))
    assert not interrupted.complete
    assert len(interrupted.results) == 2

    server.default = Reply.ok("later")
    before = len(server.requests)
    process = start_run("--resume")
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert f"Resuming run {interrupted.run_id}" in output
    asked = [r.body["messages"][-1]["content"] for r in server.requests[before:]]
    assert asked == ["question 2", "question 3", "question 4"]  # nothing finished is repeated
    resumed = load_run(Path("run.json"))
    assert resumed.complete
    assert resumed.run_id == interrupted.run_id
    assert [r.case_id for r in resumed.results] == [f"case-{i}" for i in range(5)]
    assert len(Path("run.jsonl").read_text(encoding="utf-8").splitlines()) == 5


@pytest.mark.slow
def test_a_second_signal_stops_at_once_and_keeps_finished_results(server: FaultServer) -> None:
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    server.queue(Reply.ok("first"), Reply.ok("second"))
    server.default = Reply.hang(60)
    process = start_run()
    wait_for_requests(server, 3, process)
    output = interrupt_twice(process)
    assert process.returncode == 130, output
    assert "stopped at once; finished results are kept" in output
    lines = Path("run.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["completion"]["text"] for line in lines] == ["first", "second"]
