"""Daemon worker threads for user code: a hung function must not hold the process.

`asyncio.to_thread` uses the loop's default executor, whose threads are joined when the
loop closes and at exit: one function that never returns would hang the run forever after
its timeout. These threads are daemons, started as needed and reused.

Python cannot stop a thread. When the wait for a job ends before the job does (its time
limit passed, or the run stopped), the job is *abandoned*: its thread leaves the pool (it
ends by itself if the function ever returns) and another may start in its place, so hung
functions never use up the pool. A job whose wait ended before any thread took it never runs.

Async functions run on one event loop of promptum's own (`run_on_call_loop`), on a daemon
thread, never on the run's: one that blocks its loop cannot stall the run, its time limits
or Ctrl-C. They share that loop, as they shared the run's, so a client made at import
(``AsyncOpenAI()``) keeps working from call to call and run to run.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import queue
import threading
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

_MAX_THREADS = 64
"""Threads running jobs at once; abandoned ones no longer count."""

_Item = TypeVar("_Item")
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


def catchable(error: BaseException) -> BaseException:
    """``error`` as its awaiting caller can catch it: an `Exception`, or Ctrl-C itself.

    Awaited on an event loop, a ``SystemExit`` would end the loop and the run with it, and a
    ``CancelledError`` would pass for the caller's own cancellation.
    """
    if isinstance(error, Exception | KeyboardInterrupt):
        return error
    carried = RuntimeError(f"{type(error).__name__}: {error}")
    carried.__cause__ = error
    return carried


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
            value, error = None, catchable(exc)
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


_GIVE_UP_GRACE_S = 0.1
"""How long a cancelled async call may take to end before it counts as abandoned."""
_RETIRE_CHECK_S = 1.0
"""How often a call loop left stuck looks whether its calls have ended, to stop."""


class _Mailbox(Generic[_Item]):
    """Hands items from any thread to a function on an event loop, one wake-up per batch.

    A wake-up per item (``call_soon_threadsafe``) costs a write to the loop's pipe and a
    thread switch; items posted while a wake-up is pending ride along with it.
    """

    __slots__ = ("_handle", "_items", "_loop", "_waking")

    def __init__(self, loop: asyncio.AbstractEventLoop, handle: Callable[[_Item], None]) -> None:
        self._loop = weakref.ref(loop)  # weak: a closed loop's mailbox leaves `_answers` with it
        self._handle = handle
        self._items: collections.deque[_Item] = collections.deque()
        self._waking = False

    def post(self, item: _Item) -> None:
        """Hand `item` over; raises RuntimeError if the loop is closed."""
        self._items.append(item)
        if not self._waking:  # else a wake-up that has not started yet will take it
            self._waking = True
            loop = self._loop()
            try:
                if loop is None:
                    raise RuntimeError("Event loop is closed")
                loop.call_soon_threadsafe(self._drain)
            except RuntimeError:
                self._waking = False
                raise

    def _drain(self) -> None:
        self._waking = False  # first: an item posted from now on asks for a wake-up of its own
        items = self._items
        while items:
            self._handle(items.popleft())


_Answer = tuple[asyncio.Future[Any], Any, BaseException | None]
"""A call's future on its caller's loop, and the value or exception to settle it with."""


@dataclass(eq=False, slots=True)
class _Call:
    """One coroutine to run on the call loop, and how far it got."""

    call: Callable[[], Awaitable[Any]]
    future: asyncio.Future[Any]
    """On the caller's loop: the coroutine's result (or exception) arrives here."""
    answers: _Mailbox[_Answer]
    """The caller's loop's mailbox for answers."""
    task: asyncio.Task[None] | None = None
    cancel_seen: bool = False
    """The call loop ran the cancellation: it was not stuck then."""
    ended: bool = False


def _answer(answer: _Answer) -> None:
    _settle(*answer)


class _CallLoop:
    """An event loop on a daemon thread of its own, where async functions run off the run's loop."""

    __slots__ = ("calls", "loop", "stuck")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.calls = _Mailbox(self.loop, _start)
        self.stuck = False
        """Its thread did not run a callback in time: one call blocks it (``time.sleep``)."""
        threading.Thread(
            target=_serve, args=(self.loop,), name="promptum-async", daemon=True
        ).start()


_call_loop: _CallLoop | None = None
_answers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Mailbox[_Answer]] = (
    weakref.WeakKeyDictionary()
)
"""Each calling loop's mailbox for the answers of its calls."""


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_forever()
    finally:
        loop.close()


def _current_call_loop() -> _CallLoop:
    """The call loop, started on first use and replaced once stuck."""
    global _call_loop
    with _lock:
        if _call_loop is None or _call_loop.stuck:
            _call_loop = _CallLoop()
        return _call_loop


def _start(call: _Call) -> None:
    """On the call loop: start the call, unless its wait already ended."""
    if call.cancel_seen:
        call.ended = True
        return
    call.task = asyncio.get_running_loop().create_task(_run(call))
    # Not in `_run`: a task cancelled before its first step never enters its coroutine.
    call.task.add_done_callback(lambda _: _end(call))


def _end(call: _Call) -> None:
    call.ended = True


async def _run(call: _Call) -> None:
    """On the call loop: await the call; whatever it raises goes to its caller, never here."""
    try:
        value, error = await call.call(), None
    except BaseException as exc:  # its cancellation too: the caller stopped waiting
        value, error = None, catchable(exc)
    with contextlib.suppress(RuntimeError):  # the caller's loop closed while the call ran
        call.answers.post((call.future, value, error))


def _cancel(call: _Call) -> None:
    """On the call loop: stop the call at its next ``await``."""
    call.cancel_seen = True
    if call.task is not None:
        call.task.cancel()


def _retire(loop: asyncio.AbstractEventLoop) -> None:
    """On a call loop left stuck, once it runs again: stop when its calls have ended."""
    if asyncio.all_tasks(loop):
        loop.call_later(_RETIRE_CHECK_S, _retire, loop)
    else:
        loop.stop()


async def run_on_call_loop(
    call: Callable[[], Awaitable[Any]], on_abandon: Callable[[], None] | None = None
) -> Any:
    """Await ``call()`` on promptum's own event loop, on a daemon thread: never the caller's.

    So a coroutine that blocks its loop (``time.sleep``, a busy loop) stalls neither the run
    nor its time limits and signals. Cancelling the wait cancels the coroutine; one that has
    not ended shortly after is abandoned (``on_abandon`` is called), and if the loop itself
    did not answer, later calls get a fresh loop.
    """
    loop = asyncio.get_running_loop()
    answers = _answers.get(loop)
    if answers is None:
        answers = _answers[loop] = _Mailbox(loop, _answer)
    home = _current_call_loop()
    job = _Call(call, loop.create_future(), answers)
    home.calls.post(job)
    try:
        return await job.future
    except asyncio.CancelledError:
        await _give_up(job, home, on_abandon)
        raise


async def _give_up(job: _Call, home: _CallLoop, on_abandon: Callable[[], None] | None) -> None:
    """Cancel a call whose wait ended; abandon it if it has not ended within a grace period."""
    with contextlib.suppress(RuntimeError):  # its loop was retired: the call ended with it
        home.loop.call_soon_threadsafe(_cancel, job)
    waited, pause = 0.0, 0.001
    try:
        while not job.ended and waited < _GIVE_UP_GRACE_S:
            await asyncio.sleep(pause)
            waited, pause = waited + pause, min(pause * 2, 0.02)
    finally:
        if not job.ended:
            _abandon_call(job, home, on_abandon)


def _abandon_call(job: _Call, home: _CallLoop, on_abandon: Callable[[], None] | None) -> None:
    if not job.cancel_seen:  # the loop ran nothing since: a call blocks it
        with _lock:
            if not home.stuck:
                home.stuck = True
                home.loop.call_soon_threadsafe(_retire, home.loop)
    if on_abandon is not None:
        on_abandon()
