"""The response cache reads a loop turn's answers in one transaction, ended at the next turn."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from promptum.providers import ResponseCache
from promptum.providers._cache import FLUSH_EVERY
from promptum.values.completion import Completion


def _filled(path: Path, count: int) -> None:
    cache = ResponseCache(path)
    for i in range(count):
        cache.put(f"k{i}", Completion(text=f"answer {i}", model="m", latency_ms=10.0 + i))
    cache.close()


def _traced(path: Path, count: int) -> tuple[ResponseCache, list[str]]:
    """A cache of `count` answers, and the transaction statements it runs from now on."""
    _filled(path, count)
    statements: list[str] = []
    cache = ResponseCache(path)
    assert cache.get("opens the connection") is None  # outside a loop: no transaction
    connection = cache._connection
    assert connection is not None

    def keep(statement: str) -> None:
        if statement.split()[0].upper() in {"BEGIN", "COMMIT", "ROLLBACK"}:
            statements.append(statement.split()[0].upper())

    connection.set_trace_callback(keep)
    return cache, statements


def test_reads_of_one_turn_share_one_transaction_ended_at_the_next_turn(tmp_path: Path) -> None:
    cache, statements = _traced(tmp_path / "c.sqlite", 50)

    async def run() -> tuple[list[Completion | None], list[str], bool, bool]:
        hits = [cache.get(f"k{i}") for i in range(50)] + [cache.get("missing")]
        during = list(statements)
        connection = cache._connection
        assert connection is not None
        open_during = connection.in_transaction
        await asyncio.sleep(0)  # the next turn: the loop would now wait for a model
        open_after = connection.in_transaction
        cache.close()
        return hits, during, open_during, open_after

    hits, during, open_during, open_after = asyncio.run(run())
    assert during == ["BEGIN"]  # one transaction for the 51 reads of the turn
    assert open_during
    assert not open_after
    assert statements == ["BEGIN", "COMMIT"]
    assert hits[-1] is None
    for i, hit in enumerate(hits[:-1]):
        assert hit == Completion(text=f"answer {i}", model="m", latency_ms=10.0 + i, cached=True)


def test_each_turn_begins_its_own_transaction(tmp_path: Path) -> None:
    cache, statements = _traced(tmp_path / "c.sqlite", 3)

    async def run() -> list[bool]:
        found = []
        for i in range(3):
            found.append(cache.get(f"k{i}") is not None)
            await asyncio.sleep(0)
        cache.close()
        return found

    assert asyncio.run(run()) == [True, True, True]
    assert statements == ["BEGIN", "COMMIT"] * 3


def test_a_write_in_the_turn_of_reads_is_committed(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    _filled(path, 1)

    async def run() -> ResponseCache:
        cache = ResponseCache(path)
        assert cache.get("k0") is not None  # the turn's read transaction is open
        for i in range(FLUSH_EVERY):  # a full batch: committed now, in this turn
            cache.put(f"new{i}", Completion(text=str(i)))
        assert cache.get("k0") is not None  # reading again in the same turn
        return cache

    cache = asyncio.run(run())
    assert cache.problem is None
    reader = ResponseCache(path)
    found = reader.get(f"new{FLUSH_EVERY - 1}")
    assert found is not None
    assert found.text == str(FLUSH_EVERY - 1)
    cache.close()


def test_reads_outside_a_loop_hold_no_transaction(tmp_path: Path) -> None:
    cache, statements = _traced(tmp_path / "c.sqlite", 2)
    assert cache.get("k1") is not None
    assert statements == []
    connection = cache._connection
    assert connection is not None
    assert not connection.in_transaction


def test_a_cache_outliving_its_loop_reads_and_writes_on(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    _filled(path, 2)
    cache = ResponseCache(path)

    async def read() -> Completion | None:
        return cache.get("k0")  # the loop closes before the turn that would end it

    assert asyncio.run(read()) is not None
    assert asyncio.run(read()) is not None  # another loop: a transaction of its own
    assert cache.get("k1") is not None  # no loop at all
    for i in range(FLUSH_EVERY):
        cache.put(f"later{i}", Completion(text="x"))
    assert cache.problem is None
    other = sqlite3.connect(path)
    (count,) = other.execute("SELECT count(*) FROM responses").fetchone()
    other.close()
    assert count == 2 + FLUSH_EVERY
    cache.close()
