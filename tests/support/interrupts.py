"""Stopping a run partway: a `promptum run` subprocess the way a person at a terminal does,
or a session's run once it has reached a given point."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from promptum import Session
from promptum.values.run_result import RunResult
from tests.support.fault_server import FaultServer


def wait_for_requests(server: FaultServer, count: int, process: subprocess.Popen[str]) -> None:
    """Wait (a minute at most) until `server` has had `count` requests from the running process."""
    deadline = time.monotonic() + 60
    while len(server.requests) < count:
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "the run never reached the hanging call"
        time.sleep(0.05)


def interrupt_once(process: subprocess.Popen[str]) -> str:
    """Ctrl-C once: the run stops (exit 130); its whole output."""
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130, output
    return output


def interrupt_twice(process: subprocess.Popen[str]) -> str:
    """Ctrl-C, and once the run says it is stopping, Ctrl-C again; the run's whole output."""
    process.send_signal(signal.SIGINT)
    assert process.stdout is not None
    seen: list[str] = []
    while not seen or "press Ctrl-C again" not in seen[-1]:  # the first signal was handled
        line = process.stdout.readline()
        assert line, "".join(seen)
        seen.append(line)
    process.send_signal(signal.SIGINT)
    return "".join(seen) + process.communicate(timeout=30)[0]


async def stopped_when(session: Session, reached: Callable[[], bool], journal: Path) -> RunResult:
    """Run `session` with a journal in `journal`, stopped (0.2 s grace) once `reached()` holds."""
    stop = asyncio.Event()

    async def watch() -> None:
        while not reached():
            await asyncio.sleep(0.01)
        stop.set()

    watcher = asyncio.create_task(watch())
    try:
        return await session.arun(stop=stop, journal_dir=journal, grace_s=0.2)
    finally:
        watcher.cancel()
