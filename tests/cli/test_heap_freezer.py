"""The CLI keeps the collector off what was loaded before the calls, and gives it back after."""

from __future__ import annotations

import gc
import weakref

from promptum.cli._heap import HeapFreezer, collector_paused
from promptum.values.run_result import RunResult


class _Node:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_what_was_alive_at_the_start_is_frozen_for_the_run_then_collected() -> None:
    run = RunResult(run_id="r", suite="s", models=["m"])
    freezer = HeapFreezer(resume_collector=True)
    garbage = _Node()
    gone = weakref.ref(garbage)
    del garbage  # unreachable, but in a cycle: waits for the collector
    try:
        freezer.start(run)
        assert gc.get_freeze_count() > 0
        gc.collect()
        assert gone() is not None  # frozen: no collection walks it during the run
    finally:
        freezer.finish(run)
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert gone() is None


def test_the_collector_is_paused_until_the_calls_and_restored_whatever_happens() -> None:
    run = RunResult(run_id="r", suite="s", models=["m"])
    assert gc.isenabled()
    try:
        with collector_paused() as freezer:
            assert not gc.isenabled()  # loading
            freezer.start(run)
            assert gc.isenabled()  # the calls
            freezer.finish(run)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert gc.isenabled()
    with collector_paused():
        pass  # a run that failed before its first call
    assert gc.isenabled()
