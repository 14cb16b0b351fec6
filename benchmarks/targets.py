"""Per-call overhead of a Python target: promptum's call path against a plain asyncio loop.

10,000 calls of a function that returns at once, 8 in flight, both ways: a sync function
(promptum runs it on its worker threads; the plain loop uses ``asyncio.to_thread``) and an
async one (the plain loop awaits it). promptum's side is `ModelClient.complete` with the
cache off, the path every target call of a run takes (route, provider, timeout, retries,
the `Completion`); the whole run (grading, results, sinks) is printed too, for scale. The
sides take turns each repeat so a busy machine slows them alike; the best repeat counts.
Run: .venv/bin/python benchmarks/targets.py [--calls N] [--repeats N]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from promptum import Prompt, Session
from promptum.providers import ClientOptions, ModelClient, ModelRequest, PythonTarget
from promptum.values.run_result import Message

IN_FLIGHT = 8


def answer(query: str) -> str:
    """Returns at once: all that is measured is the way there and back."""
    return "ok"


async def answer_async(query: str) -> str:
    """The async twin."""
    return "ok"


async def _spread(calls: int, one: Callable[[], Awaitable[Any]]) -> float:
    remaining = calls

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await one()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(IN_FLIGHT)))
    return time.perf_counter() - started


async def plain(calls: int, function: Callable[..., Any]) -> float:
    """The baseline: the function called from a plain asyncio loop."""
    if asyncio.iscoroutinefunction(function):
        return await _spread(calls, lambda: function("q"))
    return await _spread(calls, lambda: asyncio.to_thread(function, "q"))


async def through_client(calls: int, function: Callable[..., Any]) -> float:
    """promptum's per-call path: `ModelClient.complete` on a target id."""
    target = PythonTarget("bench", function, max_concurrency=IN_FLIGHT)
    client = ModelClient(ClientOptions(cache=False, targets={target.id: target}))
    request = ModelRequest(model=target.id, messages=(Message(role="user", content="q"),))
    try:
        return await _spread(calls, lambda: client.complete(request))
    finally:
        await client.aclose()


def whole_run(calls: int, function: Callable[..., Any]) -> float:
    """A whole run of `calls` cases on the target (grading, results, no sinks)."""
    prompts = [Prompt(name=f"c{i}", prompt="q", target=function) for i in range(calls)]
    session = Session(
        tests=prompts, concurrency=IN_FLIGHT, client_options=ClientOptions(cache=False)
    )
    started = time.perf_counter()
    session.run()
    return time.perf_counter() - started


def main() -> None:
    """Print the per-call times and ratios."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for label, function in (("sync", answer), ("async", answer_async)):
        best: dict[str, float] = {}
        for _ in range(args.repeats):
            for side, measure in (("plain", plain), ("target", through_client)):
                seconds = asyncio.run(measure(args.calls, function))
                best[side] = min(best.get(side, seconds), seconds)
        run_s = whole_run(args.calls, function)
        per = {side: seconds / args.calls * 1e6 for side, seconds in best.items()}
        print(
            f"{label:5} function, {args.calls:,} calls, {IN_FLIGHT} in flight: "
            f"plain loop {per['plain']:.1f} µs/call, target {per['target']:.1f} µs/call, "
            f"ratio {per['target'] / per['plain']:.2f}x; whole run "
            f"{run_s / args.calls * 1e6:.0f} µs/case"
        )


if __name__ == "__main__":
    main()
