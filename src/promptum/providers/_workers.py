"""Daemon worker threads for sync targets: a hung function must not hold the process.

`asyncio.to_thread` uses the loop's default executor, whose threads are joined when the
loop closes and at exit: one function that never returns would hang the run forever after
its timeout. These threads are daemons, started as needed and reused.

Python cannot stop a thread. When the wait for a job ends before the job does (its time
limit passed, or the run stopped), the job is *abandoned*: its thread leaves the pool (it
ends by itself if the function ever returns) and another may start in its place, so hung
functions never use up the pool. A job whose wait ended before any thread took it never runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

_MAX_THREADS = 64
"""Threads running jobs at once; abandoned ones no longer count."""

_State = Literal["queued", "running", "done", "skipped", "abandoned"]


@dataclass(eq=False, slots=True)
class _Job:
    """One call to run, and how far it got (read and written under `_lock`)."""

    call: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    on_abandon: Callable[[], None] | None = None
    state: _State = "queued"
    """``skipped``: its wait ended before a thread took it, so it never runs."""


_jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
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


def _start_thread() -> None:
    """Start a worker; the caller holds `_lock` and counts it in `_threads` (or replaces one)."""
    threading.Thread(target=_work, name="promptum-target", daemon=True).start()


def _take(job: _Job) -> bool:
    """Mark a dequeued job running; False (and the thread idle again) if its wait ended."""
    global _idle
    with _lock:
        if job.state == "skipped":
            _idle += 1
            return False
        job.state = "running"
        return True


def _work() -> None:
    global _idle
    while True:
        job = _jobs.get()
        if not _take(job):
            continue
        try:
            value, error = job.call(), None
        except BaseException as exc:  # the caller's to judge, on its own loop
            value, error = None, exc
        with _lock:
            abandoned = job.state == "abandoned"
            job.state = "done"
            if not abandoned:
                _idle += 1
        if abandoned:
            return  # replaced in the pool when it was abandoned: this thread is spare now
        with contextlib.suppress(RuntimeError):  # the loop closed while the function ran
            job.loop.call_soon_threadsafe(_settle, job.future, value, error)


def _on_done(job: _Job, future: asyncio.Future[Any]) -> None:
    """On the loop: a wait that ended before its job did skips or abandons the job."""
    global _idle
    if not future.cancelled():
        return
    with _lock:
        if job.state == "queued":
            job.state = "skipped"
            return
        if job.state != "running":
            return
        # The stuck thread leaves the pool as if it had finished, and a new one takes its
        # place (and its count in `_threads`), so waiting jobs are not held up behind it.
        job.state = "abandoned"
        _idle += 1
        _start_thread()
    if job.on_abandon is not None:
        job.on_abandon()


def run_in_worker(
    call: Callable[[], Any], on_abandon: Callable[[], None] | None = None
) -> asyncio.Future[Any]:
    """Run ``call`` on a daemon worker thread; its result (or exception) arrives as a future.

    Cancelling the future abandons a call that has started (``on_abandon`` is then called,
    on the loop) and drops one that has not.
    """
    global _threads, _idle
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    job = _Job(call, loop, future, on_abandon)
    future.add_done_callback(lambda done: _on_done(job, done))
    with _lock:
        # Each job reserves an idle thread, or starts one; past the cap jobs queue
        # (idle goes negative: the backlog).
        if _idle <= 0 and _threads < _MAX_THREADS:
            _threads += 1
            _start_thread()
        else:
            _idle -= 1
    _jobs.put(job)
    return future
