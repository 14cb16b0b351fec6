"""TurnFlush: lines written in one turn of the event loop are flushed once, before it waits."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from promptum.foundations.flushing import TurnFlush


class _CountingFile(io.StringIO):
    """A file that counts its flushes, and can be made to fail them."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0
        self.failing = False

    def flush(self) -> None:
        if self.failing:
            raise OSError(28, "No space left on device")
        self.flushes += 1
        super().flush()


def test_outside_an_event_loop_each_request_flushes_at_once(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    with path.open("w", encoding="utf-8") as file:
        out = TurnFlush(file)
        file.write("one\n")
        out.flush_soon()
        assert path.read_text(encoding="utf-8") == "one\n"


def test_lines_of_one_turn_are_flushed_once_before_the_loop_waits(tmp_path: Path) -> None:
    path = tmp_path / "lines.txt"
    seen: list[str] = []

    async def write_three_then_wait() -> None:
        with path.open("w", encoding="utf-8") as file:
            out = TurnFlush(file)
            for line in ("a\n", "b\n", "c\n"):
                file.write(line)
                out.flush_soon()
            await asyncio.sleep(0.01)  # the loop waits: the lines must be in the file by now
            seen.append(path.read_text(encoding="utf-8"))

    asyncio.run(write_three_then_wait())
    assert seen == ["a\nb\nc\n"]


def test_one_flush_per_turn_however_many_lines() -> None:
    file = _CountingFile()

    async def two_turns() -> None:
        out = TurnFlush(file)
        for _ in range(5):
            out.flush_soon()
        await asyncio.sleep(0)
        out.flush_soon()
        await asyncio.sleep(0)

    asyncio.run(two_turns())
    assert file.flushes == 2


def test_a_failed_flush_on_the_loop_is_raised_by_the_next_write() -> None:
    file = _CountingFile()
    out = TurnFlush(file)

    async def fail_once() -> None:
        file.failing = True
        out.flush_soon()
        await asyncio.sleep(0)
        file.failing = False

    asyncio.run(fail_once())
    with pytest.raises(OSError, match="No space left"):
        out.write("next\n")
    out.raise_failure()  # reported once
    assert "next" not in file.getvalue()  # not written after an unreported failure


def test_a_file_closed_before_the_turn_ends_is_left_alone(tmp_path: Path) -> None:
    async def close_at_once() -> None:
        file = (tmp_path / "lines.txt").open("w", encoding="utf-8")
        out = TurnFlush(file)
        file.write("last\n")
        out.flush_soon()
        file.close()
        await asyncio.sleep(0)
        out.raise_failure()

    asyncio.run(close_at_once())
    assert (tmp_path / "lines.txt").read_text(encoding="utf-8") == "last\n"


def test_a_flush_left_on_a_closed_loop_does_not_stop_the_next_loop_flushing() -> None:
    file = _CountingFile()
    out = TurnFlush(file)
    loop = asyncio.new_event_loop()
    loop.call_soon(loop.stop)
    loop.call_soon(out.flush_soon)  # queued after the stop: never run
    loop.run_forever()
    loop.close()
    assert file.flushes == 0

    async def one_turn() -> None:
        out.flush_soon()
        await asyncio.sleep(0)

    asyncio.run(one_turn())
    assert file.flushes == 1
