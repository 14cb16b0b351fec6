"""Stopping a `promptum run` subprocess the way a person at a terminal does."""

from __future__ import annotations

import signal
import subprocess


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
