"""The run store commits results in batches: stopping at once, or a kill, loses none of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from promptum.store import RunStore
from tests.cli.test_interrupt import SUITE, start_run
from tests.support.fault_server import FaultServer, Reply
from tests.support.interrupts import interrupt_twice, wait_for_requests


def _start_run_stuck_on_its_fourth_call(server: FaultServer) -> subprocess.Popen[str]:
    """A run whose first three calls are answered at once and whose fourth hangs."""
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    server.queue(*(Reply.ok(f"answer {n}") for n in range(3)))
    server.default = Reply.hang(60)
    process = start_run()
    wait_for_requests(server, 4, process)
    return process


@pytest.mark.slow
def test_a_second_signal_commits_the_results_the_store_held_back(server: FaultServer) -> None:
    process = _start_run_stuck_on_its_fourth_call(server)
    output = interrupt_twice(process)
    assert process.returncode == 130, output

    run = RunStore(Path(".promptum") / "runs.sqlite").list_runs()[0]
    assert run.state == "unfinished"  # stopped before the run's end was written
    assert run.total == 3


@pytest.mark.slow
def test_after_a_kill_resume_completes_the_store_from_the_journal(server: FaultServer) -> None:
    process = _start_run_stuck_on_its_fourth_call(server)
    process.kill()  # no handler runs: the store may lack results the journal has
    process.communicate(timeout=30)

    server.default = Reply.ok("later")
    process = start_run("--resume")
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    store = RunStore(Path(".promptum") / "runs.sqlite")
    (run,) = store.list_runs()
    assert (run.state, run.total, run.passed) == ("complete", 5, 5)
    texts = [result.completion.text for result in store.load(run.run_id).results]
    assert texts == ["answer 0", "answer 1", "answer 2", "later", "later"]
