"""`promptum run --watch` runs again when a file the suite reads changes; Ctrl-C leaves."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.fault_server import FaultServer

SUITE = """\
models: [fault/m]
cases_from: rows.csv
prompt: "{{ question }}"
test_cases:
  - {id: greet, query: Say hello}
"""


def _lines(process: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put("")  # end of output

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _until(lines: queue.Queue[str], marker: str) -> list[str]:
    """The lines up to the first holding `marker`; fails after a generous bound, never on time."""
    seen: list[str] = []
    while True:
        line = lines.get(timeout=120)
        assert line, f"the process ended before {marker!r}:\n{''.join(seen)}"
        seen.append(line)
        if marker in line:
            return seen


@contextmanager
def _watching(folder: Path) -> Iterator[tuple[subprocess.Popen[str], queue.Queue[str]]]:
    """`promptum run --watch` of a suite and its data file in `folder`, in a session of its
    own, and its output's lines; killed at the block's end if still running."""
    Path("suite.yaml").write_text(SUITE, encoding="utf-8")
    Path("rows.csv").write_text("id,question\nrow,What is 2+2?\n", encoding="utf-8")
    env = {**os.environ, "PROMPTUM_WATCH_POLL_S": "0.05", "COLUMNS": "200"}
    process = subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "--watch", "--no-store"],
        cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        yield process, _lines(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_watch_runs_again_on_a_change_and_ctrl_c_leaves(
    server: FaultServer, tmp_path: Path
) -> None:
    with _watching(tmp_path) as (process, lines):
        first = "".join(_until(lines, "watching"))
        assert "Running 2 results" in first
        assert "watching 2 file(s)" in first  # the suite and its data file

        Path("suite.yaml").write_text(SUITE.replace("Say hello", "Say hi"), encoding="utf-8")
        second = "".join(_until(lines, "watching"))
        assert "changed: suite.yaml; running again" in second
        assert "Running 2 results" in second

        Path("rows.csv").write_text("id,question\nrow,What is 3+3?\n", encoding="utf-8")
        third = "".join(_until(lines, "watching"))
        assert "changed: rows.csv; running again" in third
        asked = [r.body["messages"][-1]["content"] for r in server.requests]
        assert "Say hi" in asked
        assert "What is 3+3?" in asked

        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
        assert process.wait(timeout=60) == 130
        assert "stopped watching" in "".join(_until(lines, "stopped watching"))


def test_sigterm_to_the_watcher_stops_it_as_ctrl_c_does(
    server: FaultServer, tmp_path: Path
) -> None:
    with _watching(tmp_path) as (process, lines):
        _until(lines, "watching")
        process.terminate()  # a service manager stops the watcher alone
        assert process.wait(timeout=60) == 130
        assert "stopped watching" in "".join(_until(lines, "stopped watching"))
