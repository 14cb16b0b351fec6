"""The viewer served on a free loopback port: in a thread of the test, or as `promptum view`."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def served_app(app: Any) -> Iterator[int]:
    """`app` under uvicorn on a free port of 127.0.0.1, in a thread; yields the port."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def first_page(port: int) -> str:
    """The home page of a viewer started in another process, once it answers (30 s at most)."""
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "the viewer did not answer"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                return str(response.read().decode())
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)


def promptum_view(
    db: Path, port: int, *args: str, cwd: Path, **popen: Any
) -> subprocess.Popen[str]:
    """`promptum view --db DB --port PORT ARGS` in another process, its output piped as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "view", "--db", str(db), "--port", str(port), *args],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen,
    )  # fmt: skip
