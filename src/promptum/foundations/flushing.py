"""Flushing a file once per turn of the event loop, however many results were written in it."""

from __future__ import annotations

import sys
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from asyncio import AbstractEventLoop


def _running_loop() -> AbstractEventLoop | None:
    """The event loop running in this thread, if any."""
    # No loop runs unless asyncio was imported: code that never imports it need not.
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return None
    try:
        loop: AbstractEventLoop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop


class TurnFlush:
    """Flushes `file` at the event loop's next turn, before it waits; at once outside a loop.

    Results that finish together (answers read from several connections in one turn) then
    cost one write to the file, not one each: a write was the largest cost of a result in
    the resume journal. The flush runs before the loop next waits for anything (a model's
    answer, a timer), so a process killed while it waits has lost nothing; a kill can only
    take the lines of the turn it lands in, as it could take the one line being written.

    A failed flush is kept and raised by the next `write`, or by `raise_failure`, which the
    owner calls when it closes the file: a loop callback has no caller to report to.
    """

    def __init__(self, file: IO[Any]) -> None:
        self.file = file
        self._scheduled_on: AbstractEventLoop | None = None
        """The loop a flush is queued on: one that closed before running it counts for none."""
        self._failure: OSError | None = None

    def write(self, text: str) -> None:
        """Write `text`, flushed at the loop's next turn; first raise a failed earlier flush."""
        self.raise_failure()
        self.file.write(text)
        self.flush_soon()

    def flush_soon(self) -> None:
        """Flush what was written, at the loop's next turn (at once outside a running loop)."""
        loop = _running_loop()
        if loop is None:
            self.file.flush()
            return
        if self._scheduled_on is loop:
            return
        self._scheduled_on = loop
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._scheduled_on = None
        if self.file.closed:  # closed meanwhile, which flushed it
            return
        try:
            self.file.flush()
        except OSError as exc:
            self._failure = exc

    def raise_failure(self) -> None:
        """Raise the error of a flush made on the loop, if one failed since the last call."""
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
