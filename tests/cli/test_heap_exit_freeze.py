"""A `promptum run` process skips walking its heap at exit: everything alive is frozen then."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.fault_server import FaultServer

# Registered before the command runs, so it runs after the command's own exit handlers.
_PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0, flush=True))
from promptum.cli import main
main(sys.argv[1:])
"""


def _promptum(*arguments: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment.pop("PROMPTUM_DB", None)
    return subprocess.run(
        [sys.executable, "-c", _PROBE, *arguments],
        env=environment, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_a_run_freezes_its_heap_at_exit_and_keeps_every_output(server: FaultServer) -> None:
    Path("suite.yaml").write_text(
        "models: [fault/m]\ntest_cases:\n"
        "  - {id: a, query: Say hello., checks: [{type: contains, value: Hello}]}\n"
        "  - {id: b, query: Say bye., checks: [{type: contains, value: Bye}]}\n"
    )
    done = _promptum("run", "suite.yaml", "-o", "r.jsonl", "-o", "r.json")
    assert done.returncode == 1, done.stderr  # b fails: the exit code is the run's
    assert done.stdout.rstrip().endswith("frozen at exit: True")
    assert "gate: FAIL" in done.stdout
    lines = Path("r.jsonl").read_text().splitlines()  # flushed and closed before exit
    assert sorted(json.loads(line)["case_id"] for line in lines) == ["a", "b"]
    assert len(json.loads(Path("r.json").read_text())["results"]) == 2
    assert not list(Path(".promptum").glob("runs/*.jsonl"))  # the complete run's journal went
    again = _promptum("run", "suite.yaml", "--no-store")
    assert "2 of 2 answers from the cache" in again.stdout  # the cache was committed at exit


def test_a_command_that_runs_nothing_leaves_the_collector_alone(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "models: [openai/gpt-4o-mini]\ntest_cases:\n"
        "  - {id: a, query: q, checks: [{type: contains, value: x}]}\n"
    )
    done = _promptum("validate", str(suite))
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("frozen at exit: False")
