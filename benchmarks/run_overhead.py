"""What a promptum run costs over the bare ``openai`` SDK, measured side by side in one run.

1,000 and 10,000 cases, each with 5 deterministic checks, at concurrency 32, through
`Session.arun` (the same core `promptum run` uses), against a bare loop of the openai SDK
making the same calls at the same concurrency. Both talk to a minimal asyncio HTTP server
in its own process that answers instantly (the test suite's fault server, built on
http.server, tops out near 200 calls/s here and would hide the overhead), so the figures
are promptum's own. Each side runs in a fresh child process so its peak RSS is its own.
Target: ≤ 1.2× the bare loop's wall time, and memory that grows only by the results.

Run from the repository root: ``.venv/bin/python benchmarks/run_overhead.py`` (under a minute).
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1_000, 10_000)
CONCURRENCY = 32
CHECKS = [
    {"type": "contains", "value": "Hello"},
    {"type": "not_contains", "value": "error", "case_insensitive": True},
    {"type": "regex", "value": r"\bserver\b"},
    {"type": "max_length", "value": 500},
    {"type": "max_latency_ms", "value": 5000},
]


_ANSWER = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hello from the bench server."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
    }
).encode()
_RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    + f"Content-Length: {len(_ANSWER)}\r\n\r\n".encode()
    + _ANSWER
)


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer every request on a keep-alive connection with the same chat completion."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            writer.write(_RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def _serve() -> None:
    server = await asyncio.start_server(_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"READY http://127.0.0.1:{port}/v1", flush=True)
    await server.serve_forever()


@contextmanager
def instant_server() -> Iterator[str]:
    """The instant server in a process of its own (no shared GIL); yields its base URL."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        if not line.startswith("READY "):
            raise RuntimeError(f"the bench server did not start: {line!r}")
        yield line.removeprefix("READY ")
    finally:
        process.terminate()
        process.wait(timeout=10)


def _rss_mb() -> float:
    """The current resident set size."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _bare(base_url: str, count: int) -> dict[str, float]:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    limit = asyncio.Semaphore(CONCURRENCY)
    texts: list[str] = []

    async def one(index: int) -> None:
        async with limit:
            response = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": f"question {index}"}]
            )
            texts.append(response.choices[0].message.content or "")

    before = _rss_mb()
    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(count)))
    seconds = time.perf_counter() - started
    await client.close()
    return {"seconds": seconds, "growth_mb": _peak_rss_mb() - before, "results": len(texts)}


async def _promptum(base_url: str, count: int) -> dict[str, float]:
    import openai  # noqa: F401 - loaded before measuring, as the bare side does

    from promptum import Prompt, Session
    from promptum.providers import ClientOptions, EndpointConfig

    options = ClientOptions(
        cache=False,
        max_retries=0,
        endpoints={"bench": EndpointConfig(base_url=base_url, max_concurrency=CONCURRENCY)},
    )
    setup_started = time.perf_counter()
    session = Session(models=["bench/m"], concurrency=CONCURRENCY, client_options=options)
    for index in range(count):
        session.add_test(Prompt(name=f"case-{index}", prompt=f"question {index}", checks=CHECKS))
    setup = time.perf_counter() - setup_started
    before = _rss_mb()
    started = time.perf_counter()
    run = await session.arun()
    seconds = time.perf_counter() - started
    assert len(run.results) == count
    assert run.passed, "every case should pass its 5 checks"
    result_kb = sum(len(r.model_dump_json()) for r in run.results) / count / 1024
    return {
        "seconds": seconds,
        "setup_seconds": setup,
        "growth_mb": _peak_rss_mb() - before,
        "results": len(run.results),
        "result_json_kb": result_kb,
    }


def _child(side: str, base_url: str, count: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", side, base_url, str(count)],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{side} with {count} cases failed:\n{done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> None:
    """Run both sides at both sizes and print the ratios."""
    with instant_server() as base_url:
        rows = []
        for count in SIZES:
            bare = _child("bare", base_url, count)
            ours = _child("promptum", base_url, count)
            rows.append((count, bare, ours))
    print(f"{CONCURRENCY} concurrent calls, {len(CHECKS)} checks per case, instant local server")
    print(f"{'cases':>7} {'bare s':>8} {'promptum s':>11} {'ratio':>6} {'setup s':>8} "
          f"{'bare +MB':>9} {'promptum +MB':>13}")  # fmt: skip
    for count, bare, ours in rows:
        ratio = ours["seconds"] / bare["seconds"]
        print(
            f"{count:>7} {bare['seconds']:>8.2f} {ours['seconds']:>11.2f} {ratio:>5.2f}x "
            f"{ours['setup_seconds']:>8.2f} {bare['growth_mb']:>9.1f} {ours['growth_mb']:>13.1f}"
        )
    (small, _, small_ours), (large, _, large_ours) = rows
    marginal = (large_ours["growth_mb"] - small_ours["growth_mb"]) * 1024 / (large - small)
    print("ratio: promptum wall time / bare SDK loop (target <= 1.2x); setup: building the cases")
    print(
        f"memory: {marginal:.2f} KB of peak RSS per extra result, for results of "
        f"{large_ours['result_json_kb']:.2f} KB as JSON (message, completion, 5 check results)"
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        asyncio.run(_serve())
    elif len(sys.argv) == 5 and sys.argv[1] == "--child":
        side, url, size = sys.argv[2], sys.argv[3], int(sys.argv[4])
        work = _bare if side == "bare" else _promptum
        print(json.dumps(asyncio.run(work(url, size))))
    else:
        main()
