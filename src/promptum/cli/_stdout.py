"""Standard output that outlives its reader: `promptum run ... | head -1` still finishes.

When the program reading stdout exits, the next write raises BrokenPipeError. Click turns
that into a silent exit 1, so a run whose gate passed read as failed and wrote none of its
reports. Here the rest of what is printed goes to the null device instead: the run ends as
it would have, its reports written and its exit code the gate's.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


class _OutlivesReader:
    """A text stream that sends its writes to the null device once its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write `text`; once the reader is gone, into nothing."""
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()
            return len(text)

    def flush(self) -> None:
        """Flush; once the reader is gone, nothing is left to flush."""
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()

    def _reader_gone(self) -> None:
        # The descriptor itself now points at the null device, so that what the stream still
        # buffers, flushed at exit, raises nothing either.
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, self._stream.fileno())
        except (OSError, ValueError):  # no descriptor of its own (a test's stream)
            pass
        finally:
            os.close(null)
        self._stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - kept open

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def outlive_the_reader() -> None:
    """Make `sys.stdout` go on, into nothing, when the program reading it has exited."""
    if not isinstance(sys.stdout, _OutlivesReader):
        sys.stdout = _OutlivesReader(sys.stdout)
