"""Async targets run on promptum's own event loop: one that blocks it stalls neither the run,
its time limits nor Ctrl-C, and is abandoned at its limit like a hung sync function."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from promptum import Prompt, Session
from promptum.providers import ClientOptions, _workers
from promptum.values.run_result import RunResult

OPTIONS = {"cache": False, "backoff_base_s": 0.01, "backoff_max_s": 0.05}


def _run(*prompts: Prompt, timeout_s: float = 60) -> RunResult:
    options = ClientOptions(**{**OPTIONS, "timeout_s": timeout_s})
    return Session(tests=list(prompts), client_options=options).run()


def test_an_async_target_that_blocks_its_loop_ends_at_its_limit_and_is_abandoned() -> None:
    released = threading.Event()
    finished: list[str] = []

    async def blocks(query: str) -> str:
        released.wait(30)  # a sync call in async code: its loop can run nothing else
        finished.append(query)
        return "late"

    async def answers(query: str) -> str:
        await asyncio.sleep(0)
        return "on time"

    prompts = [Prompt(name=f"b{i}", prompt="q", target=blocks) for i in range(2)]
    try:
        run = _run(*prompts, timeout_s=0.5)
        finished_in_run = list(finished)
    finally:
        released.set()
    assert finished_in_run == []  # the run ended while both still blocked (before: it waited)
    assert [r.completion.error for r in run.results] == ["timed out: no answer within 0.5 s"] * 2
    assert any("2 calls abandoned after their time limit" in w for w in run.warnings), run.warnings
    # The loop the blocked calls held is left behind: the next async call gets a fresh one.
    graded = Prompt(
        name="next", prompt="q", target=answers, checks=[{"type": "min_length", "value": 1}]
    )
    (result,) = _run(graded, timeout_s=5).results
    assert (result.status, result.completion.text) == ("pass", "on time")


def test_an_async_target_that_awaits_is_cancelled_at_its_limit_not_abandoned() -> None:
    cancelled = threading.Event()

    async def waits(query: str) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    run = _run(Prompt(name="w", prompt="q", target=waits), timeout_s=0.3)
    assert run.results[0].completion.error == "timed out: no answer within 0.3 s"
    assert cancelled.wait(5)
    assert not any("abandoned" in warning for warning in run.warnings), run.warnings


def test_calls_cancelled_before_or_while_they_wait_end_and_are_not_abandoned() -> None:
    abandoned: list[int] = []

    async def scenario() -> None:
        waits = [
            asyncio.ensure_future(
                _workers.run_on_call_loop(lambda: asyncio.sleep(30), lambda: abandoned.append(1))
            )
            for _ in range(50)
        ]
        await asyncio.sleep(0)  # some have started on the call loop, some not yet
        for wait in waits:
            wait.cancel()
        await asyncio.gather(*waits, return_exceptions=True)

    asyncio.run(scenario())
    assert abandoned == []


def test_async_targets_share_one_loop_that_is_not_the_runs() -> None:
    # A client made at import (AsyncOpenAI(), an aiohttp session) is bound to the loop it
    # first ran on: every call, in every run, must find that same loop.
    seen: list[asyncio.AbstractEventLoop] = []
    run_loops: list[asyncio.AbstractEventLoop] = []

    async def answer(query: str) -> str:
        seen.append(asyncio.get_running_loop())
        return "ok"

    for _ in range(2):
        session = Session(
            tests=[
                Prompt(
                    name=f"p{i}",
                    prompt="q",
                    target=answer,
                    checks=[{"type": "contains", "value": "ok"}],
                )
                for i in range(3)
            ],
            client_options=ClientOptions(**OPTIONS),
        )

        async def run(session: Session = session) -> RunResult:
            run_loops.append(asyncio.get_running_loop())
            return await session.arun()

        assert all(r.status == "pass" for r in asyncio.run(run()).results)
    assert len(seen) == 6
    assert len(set(map(id, seen))) == 1
    assert not set(map(id, run_loops)) & set(map(id, seen))


APP = """\
import time


async def answer(query):
    time.sleep(3600)  # blocks its event loop for an hour
    return "late"
"""


def test_the_cli_stops_on_sigint_while_an_async_target_blocks_its_loop(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "suite.yaml").write_text(
        "name: blocked\ntarget: app.py:answer\ntest_cases: [{id: a, query: hi}]\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "--no-store", "-o", "r.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        # The run has started its case once the JSONL report exists (written as results come).
        deadline = time.monotonic() + 60
        while not (tmp_path / "r.jsonl").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)  # before: never, only SIGKILL ended it
    finally:
        process.kill()
    assert process.returncode == 130, output
    assert "interrupted" in output
