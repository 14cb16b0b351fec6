"""How much promptum's model layer costs, as ratios measured side by side in one run.

1. Overhead per call: `ModelClient.complete` against the bare ``openai`` SDK making the same
   calls at the same concurrency, both against an instantly answering local server (the
   fault server in its own process). Target: ≤ 1.1×.
2. The local provider's tokens per second against ``llama_cpp.Llama`` called directly with
   the same model file, threads and prompts. Target: ≥ 0.95×.
3. A cached re-run of 1,000 calls against the same 1,000 calls uncached.

Run from the repository root: ``.venv/bin/python benchmarks/providers.py`` (about a minute).
Rounds alternate between the sides so background load hits them alike: call figures are
medians over rounds (the CPU ratio is taken within each round), token rates are totals over
prompts timed alternately.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from promptum.providers import ClientOptions, EndpointConfig, ModelClient, ModelRequest
from promptum.values.run_result import Message

if TYPE_CHECKING:
    from openai import AsyncOpenAI

ROOT = Path(__file__).resolve().parent.parent
CALLS = 100
CONCURRENCY = 8
ROUNDS = 10
LOCAL_ROUNDS = 4
CACHED_CALLS = 1000
LOCAL_PROMPTS = [
    "Name the capital city of France in one word.",
    "Tell me a fun fact about cats.",
    "Write one sentence about the sea.",
]
LOCAL_MAX_TOKENS = 48


@contextmanager
def instant_server() -> Iterator[str]:
    """The fault server, answering normally, in a process of its own (no shared GIL)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fault_server"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"fault server did not start: {line!r}")
        yield line.removeprefix("READY ")
    finally:
        process.terminate()
        process.wait(timeout=10)


def _requests(count: int, model: str, tag: str) -> list[ModelRequest]:
    return [
        ModelRequest(
            model=model, messages=(Message(role="user", content=f"{tag} {i}"),), max_tokens=16
        )
        for i in range(count)
    ]


async def _gather_limited(calls: list[Callable[[], Awaitable[object]]]) -> None:
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(call: Callable[[], Awaitable[object]]) -> None:
        async with limit:
            await call()

    await asyncio.gather(*(one(call) for call in calls))


Timing = tuple[float, float]
"""Wall-clock seconds, and CPU seconds of this (the client's) process."""


async def _timed(calls: list[Callable[[], Awaitable[object]]]) -> Timing:
    wall, cpu = time.perf_counter(), time.process_time()
    await _gather_limited(calls)
    return time.perf_counter() - wall, time.process_time() - cpu


def _sdk_call(client: AsyncOpenAI, request: ModelRequest) -> Callable[[], Awaitable[object]]:
    return lambda: client.chat.completions.create(
        model=request.model.partition("/")[2],
        messages=[m.model_dump() for m in request.messages],
        max_tokens=request.max_tokens,
    )


async def _overhead(base_url: str, cache_dir: Path) -> dict[str, list[Timing]]:
    from openai import AsyncOpenAI

    endpoint = {"bench": EndpointConfig(base_url=base_url, max_concurrency=CONCURRENCY)}
    # One client per side for the whole measurement, as a run has: per-call cost, not setup.
    sdk = AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    clients = {
        "promptum": ModelClient(ClientOptions(cache=False, endpoints=endpoint)),
        "promptum+cache": ModelClient(
            ClientOptions(cache_path=cache_dir / "overhead.sqlite", endpoints=endpoint)
        ),
    }
    sides = ["sdk", *clients]
    times: dict[str, list[Timing]] = {side: [] for side in sides}
    for round_ in range(ROUNDS + 1):
        for side in sides[round_ % 3 :] + sides[: round_ % 3]:
            # Fresh prompts every round and side: the cached side must miss and write.
            requests = _requests(CALLS, "bench/m", f"{side} round {round_}")
            if side == "sdk":
                calls = [_sdk_call(sdk, r) for r in requests]
            else:
                calls = [partial(clients[side].complete, r) for r in requests]
            timing = await _timed(calls)
            if round_:  # round 0 warms up: imports, connections, the cache file
                times[side].append(timing)
    await sdk.close()
    for client in clients.values():
        await client.aclose()
    return times


def overhead(base_url: str, cache_dir: Path) -> dict[str, tuple[float, float, float]]:
    """Per side: median wall and client-CPU seconds per call, and the median CPU ratio to the SDK.

    The sides run in a rotating order each round and the ratio is taken within a round, so
    load from other processes, which drifts over seconds, falls on all sides alike.
    """
    times = asyncio.run(_overhead(base_url, cache_dir))
    return {
        side: (
            statistics.median(wall for wall, _ in values) / CALLS,
            statistics.median(cpu for _, cpu in values) / CALLS,
            statistics.median(
                cpu / sdk_cpu for (_, cpu), (_, sdk_cpu) in zip(values, times["sdk"], strict=True)
            ),
        )
        for side, values in times.items()
    }


async def _promptum(options: ClientOptions, requests: list[ModelRequest]) -> Timing:
    client = ModelClient(options)
    client.check_model(requests[0].model)
    elapsed = await _timed([partial(client.complete, r) for r in requests])
    await client.aclose()
    return elapsed


def cached_rerun(base_url: str, cache_dir: Path) -> tuple[Timing, Timing]:
    """Seconds for CACHED_CALLS calls uncached (filling the cache), then served from it."""
    options = ClientOptions(
        cache_path=cache_dir / "rerun.sqlite",
        endpoints={"bench": EndpointConfig(base_url=base_url, max_concurrency=CONCURRENCY)},
    )
    requests = _requests(CACHED_CALLS, "bench/m", "rerun")
    uncached = asyncio.run(_promptum(options, requests))
    cached = asyncio.run(_promptum(options, requests))
    return uncached, cached


def local_tokens_per_second() -> tuple[float, float]:
    """Output tokens per second: llama_cpp.Llama directly, and promptum's local provider."""
    from llama_cpp import Llama

    from promptum.providers import local_model_path
    from promptum.providers._local import DEFAULT_SEED
    from promptum.providers._local_model import context_size, default_threads

    path = local_model_path("smollm2")
    threads = default_threads()
    direct = Llama(
        model_path=str(path),
        n_ctx=context_size(),
        n_threads=threads,
        n_threads_batch=threads,
        seed=DEFAULT_SEED,
        verbose=False,
    )
    requests = [
        ModelRequest(
            model="local/smollm2",
            messages=(Message(role="user", content=p),),
            temperature=0.0,
            max_tokens=LOCAL_MAX_TOKENS,
        )
        for p in LOCAL_PROMPTS
    ]

    def run_direct(prompt: str) -> tuple[int, float]:
        started = time.perf_counter()
        response = direct.create_chat_completion(
            messages=[{"role": "user", "content": prompt}],
            temperature=0.0,
            max_tokens=LOCAL_MAX_TOKENS,
            seed=DEFAULT_SEED,
        )
        tokens: int = response["usage"]["completion_tokens"]
        return tokens, time.perf_counter() - started

    async def run_promptum(client: ModelClient, request: ModelRequest) -> tuple[int, float]:
        started = time.perf_counter()
        completion = await client.complete(request)
        return completion.output_tokens or 0, time.perf_counter() - started

    async def alternate() -> tuple[float, float]:
        client = ModelClient(ClientOptions(cache=False))
        await client.complete(requests[0])  # load the shared model outside the timing
        run_direct(LOCAL_PROMPTS[0])  # and warm the direct one
        totals = {"direct": [0, 0.0], "promptum": [0, 0.0]}
        for _ in range(LOCAL_ROUNDS):
            for prompt, request in zip(LOCAL_PROMPTS, requests, strict=True):
                for side, (tokens, seconds) in (
                    ("direct", run_direct(prompt)),
                    ("promptum", await run_promptum(client, request)),
                ):
                    totals[side][0] += tokens
                    totals[side][1] += seconds
        await client.aclose()
        return (
            totals["direct"][0] / totals["direct"][1],
            totals["promptum"][0] / totals["promptum"][1],
        )

    rates = asyncio.run(alternate())
    direct.close()
    return rates


def main() -> None:
    """Measure everything and print the ratios."""
    with tempfile.TemporaryDirectory() as tmp, instant_server() as base_url:
        cache_dir = Path(tmp)
        calls = overhead(base_url, cache_dir)
        uncached, cached = cached_rerun(base_url, cache_dir)
    direct_tps, promptum_tps = local_tokens_per_second()

    sdk_wall = calls["sdk"][0]
    print(f"1. {CALLS} calls at concurrency {CONCURRENCY}, instant local server ({ROUNDS} rounds)")
    print("                         wall ms/call  client CPU ms/call  CPU ratio  wall ratio")
    for side, (wall, cpu, ratio) in calls.items():
        print(
            f"   {side:<20} {wall * 1e3:9.2f} {cpu * 1e3:15.2f} {ratio:13.2f}×"
            f" {wall / sdk_wall:10.2f}×"
        )
    print("   target: promptum (cache off) ≤ 1.10× the bare SDK")
    prompts = LOCAL_ROUNDS * len(LOCAL_PROMPTS)
    print(f"2. local model, {prompts} prompts × ≤{LOCAL_MAX_TOKENS} tokens each")
    print(f"   llama_cpp.Llama directly {direct_tps:6.1f} tokens/s")
    print(
        f"   promptum local provider  {promptum_tps:6.1f} tokens/s   "
        f"{promptum_tps / direct_tps:5.2f}×   target ≥ 0.95×"
    )
    print(f"3. {CACHED_CALLS} calls, then the same {CACHED_CALLS} again from the cache")
    print(
        f"   uncached {uncached[0]:6.2f} s   cached {cached[0]:6.2f} s   "
        f"{cached[0] / uncached[0]:5.3f}× (wall)"
    )


if __name__ == "__main__":
    main()
