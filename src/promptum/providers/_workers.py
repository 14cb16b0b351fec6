"""Daemon worker threads for sync targets: a hung function must not hold the process.

`asyncio.to_thread` uses the loop's default executor, whose threads are joined when the
loop closes and at exit: one function that never returns would hang the run forever after
its timeout. These threads are daemons, started as needed and reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

_MAX_THREADS = 64

_jobs: queue.SimpleQueue[tuple[Callable[[], Any], asyncio.AbstractEventLoop, asyncio.Future[Any]]]
_jobs = queue.SimpleQueue()
_lock = threading.Lock()
_threads = 0
_idle = 0


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.cancelled():  # timed out: nobody waits for the answer any more
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


def _work() -> None:
    global _idle
    while True:
        job, loop, future = _jobs.get()
        try:
            value, error = job(), None
        except BaseException as exc:  # the caller's to judge, on its own loop
            value, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed while the function ran
            loop.call_soon_threadsafe(_settle, future, value, error)
        with _lock:
            _idle += 1


def run_in_worker(job: Callable[[], Any]) -> asyncio.Future[Any]:
    """Run ``job`` on a daemon worker thread; its result (or exception) arrives as a future."""
    global _threads, _idle
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    with _lock:
        # Each job reserves an idle thread, or starts one; past the cap jobs queue
        # (idle goes negative: the backlog).
        if _idle <= 0 and _threads < _MAX_THREADS:
            _threads += 1
            threading.Thread(target=_work, name="promptum-target", daemon=True).start()
        else:
            _idle -= 1
    _jobs.put((job, loop, future))
    return future
