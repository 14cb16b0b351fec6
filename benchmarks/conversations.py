"""What a conversation costs the runner: 5-turn conversations against 5 single-turn cases each.

The same calls both ways: ``CONVERSATIONS`` conversations of 5 turns, and 5 times as many
single-turn cases, each sending what one turn sends (the earlier turns replayed, as a case
could before conversations: the server's reply is always the same), so the bodies on the
wire are the same. Each reply is graded by the same check, at the same concurrency,
against the instant server of `run_overhead.py` (a minimal asyncio HTTP server in its own
process), so the figures are the runner's own: carrying history, rendering, per-turn
grading, summing. Each side runs in-process through `Session.arun`, alternating, the best of
`REPEATS`; the ratio is measured in this one run. Target: at most 1.0x (a conversation costs
no more than its turns as single cases).

Run from the repository root: ``.venv/bin/python benchmarks/conversations.py`` (~1 minute).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from promptum import Session
from promptum.cases import Grading, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions, EndpointConfig
from promptum.values.run_result import Message

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the benchmark next to this one
from run_overhead import instant_server

CONCURRENCY = 16
CONVERSATIONS = 12 * CONCURRENCY
"""Whole rounds: with 200, the last round of conversations runs 8 of 16 workers for five calls
where single cases end it in one, a tail of ~4% that is not the runner's cost."""
TURNS = 5
REPEATS = 5
CHECK = {"type": "contains", "value": "Hello"}
REPLY = "Hello from the bench server."
"""What the instant server always answers."""


def _session(base_url: str, conversations: bool) -> Session:
    options = ClientOptions(
        cache=False,
        max_retries=0,
        endpoints={"bench": EndpointConfig(base_url=base_url, max_concurrency=CONCURRENCY)},
    )
    session = Session(models=["bench/m"], concurrency=CONCURRENCY, client_options=options)
    check = (CheckDefinition(**CHECK),)
    for index in range(CONVERSATIONS):
        if conversations:
            turns = tuple(Turn(query=f"question {index}.{n}", checks=check) for n in range(TURNS))
            session.add_test(
                TestCase(id=f"c{index}", messages=(), models=("bench/m",), turns=turns)
            )
            continue
        history: tuple[Message, ...] = ()
        for n in range(TURNS):
            history += (Message(role="user", content=f"question {index}.{n}"),)
            session.add_test(
                TestCase(
                    id=f"c{index}.{n}",
                    messages=history,
                    models=("bench/m",),
                    grading=Grading(checks=check),
                )
            )
            history += (Message(role="assistant", content=REPLY),)
    return session


async def _timed(base_url: str, conversations: bool) -> float:
    session = _session(base_url, conversations)
    started = time.perf_counter()
    run = await session.arun()
    seconds = time.perf_counter() - started
    assert run.passed, "every reply should pass its check"
    return seconds


def main() -> None:
    """Measure both sides, alternating, and print the best of each and their ratio."""
    best = {"single": float("inf"), "conversation": float("inf")}
    with instant_server() as base_url:
        asyncio.run(_timed(base_url, False))  # warm up: imports, the SDK, connections
        for _ in range(REPEATS):
            for side in best:
                seconds = asyncio.run(_timed(base_url, side == "conversation"))
                best[side] = min(best[side], seconds)
    calls = CONVERSATIONS * TURNS
    single, conversation = best["single"], best["conversation"]
    print(f"{calls} calls, concurrency {CONCURRENCY}, best of {REPEATS}")
    print(f"  {calls} single-turn cases:        {single:.3f} s ({calls / single:.0f} calls/s)")
    print(
        f"  {CONVERSATIONS} conversations x {TURNS} turns: {conversation:.3f} s "
        f"({calls / conversation:.0f} calls/s)"
    )
    print(f"  ratio conversation / single: {conversation / single:.2f}x (target <= 1.0x)")


if __name__ == "__main__":
    main()
