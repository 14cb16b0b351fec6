"""What the everyday `promptum run` costs over a bare ``openai`` SDK loop, side by side in one run.

The command users write, as the issue measures it from outside the project: a suite of
inline YAML cases with five checks each (``contains``, ``not_contains``, a ``regex`` with a
repeat, ``max_length``, ``max_latency_ms``), store on, ``promptum run suite.yaml --model
openai/gpt-4o-mini --no-judge -c 16 --no-cache -o r.json``, the SDK pointed at the server
by ``OPENAI_BASE_URL``. The baseline is a process that imports the SDK and makes the same
calls with ``client.chat.completions.create`` at the same concurrency, testing the same
five conditions on each answer. Both talk to one asyncio server in its own process on
127.0.0.1 that answers every call at once with ``The answer is 42.`` and a usage block (an
``http.server`` tops out near 200 calls/s here and would hide the overhead).

Sides, each a whole fresh process, wall time and CPU time (user + system, from its own
``wait4``: steadier on a busy machine) and peak RSS:

- ``bare``: the SDK loop;
- ``run``: the everyday command, ``-o r.json`` (targets: 1.1x bare at 1,000 cases, 1.0x at
  10,000);
- ``store``: the same without ``-o`` (the store still on), so ``run`` minus ``store`` is
  what the JSON report costs;
- ``junit``: the same with ``-o junit.xml`` instead (target for each report: 0.3 s added
  to a run of 10,000 results).

The sides run in interleaved rounds and each figure is the median over rounds of its ratio
to the bare loop of the same round: load on a shared machine drifts, and a ratio taken
side by side cancels most of it (a best-of-N per side, taken minutes apart, does not).

Run from the repository root: ``.venv/bin/python benchmarks/run_overhead.py [--sizes 1000
10000] [--rounds 3]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

CONCURRENCY = 16
MODEL = "gpt-4o-mini"
CHECKS = [
    "{type: contains, value: '42'}",
    "{type: not_contains, value: 'sorry'}",
    "{type: regex, value: '\\d+'}",
    "{type: max_length, value: 500}",
    "{type: max_latency_ms, value: 5000}",
]
SIDES = {"run": ["-o", "r.json"], "store": [], "junit": ["-o", "junit.xml"]}
"""Each promptum side's report options."""
TARGETS = {1_000: 1.1, 10_000: 1.0}

REPLY = "The answer is 42."
"""The outside harness's answer; other benchmarks serve their own (`instant_server`)."""


def _response(reply: str) -> bytes:
    """The HTTP response to every call: a chat completion of `reply`, with its usage."""
    answer = json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18},
        }
    ).encode()
    head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n"
    return f"{head}Content-Length: {len(answer)}\r\n\r\n".encode() + answer


_BARE = """\
import asyncio, re, sys, time
from openai import AsyncOpenAI

N, J, URL = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
DIGITS = re.compile(r"\\d+")


async def main():
    client = AsyncOpenAI(base_url=URL, api_key="sk-local", max_retries=0)
    limit = asyncio.Semaphore(J)

    async def one(i):
        async with limit:
            started = time.perf_counter()
            r = await client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": f"Question number {i}: what is the answer?"}],
            )
            ms = (time.perf_counter() - started) * 1000
            t = r.choices[0].message.content or ""
            return ("42" in t and "sorry" not in t and DIGITS.search(t) is not None
                    and len(t) <= 500 and ms <= 5000)

    passed = sum(await asyncio.gather(*(one(i) for i in range(N))))
    await client.close()
    assert passed == N, passed


asyncio.run(main())
"""
"""The bare loop, as an SDK user writes it (the outside harness's ``bare_sdk.py``)."""


async def _answer(
    response: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    """Answer every request on a keep-alive connection with the same chat completion."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            writer.write(response)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def _serve(reply: str) -> None:
    answer = partial(_answer, _response(reply))
    server = await asyncio.start_server(answer, "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"READY http://127.0.0.1:{port}/v1", flush=True)
    await server.serve_forever()


@contextmanager
def instant_server(reply: str = "Hello from the bench server.") -> Iterator[str]:
    """The instant server answering `reply`, in its own process (no shared GIL); its URL."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", reply], stdout=subprocess.PIPE, text=True
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


def write_suite(path: Path, count: int) -> None:
    """The outside harness's suite: inline cases, five checks each, no endpoint of its own."""
    lines = ["test_cases:"]
    for i in range(count):
        lines += [
            f"  - id: case-{i}",
            f'    query: "Question number {i}: what is the answer?"',
            "    checks:",
            *(f"      - {check}" for check in CHECKS),
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """Run `command` to its end: wall and CPU seconds and peak RSS (MB), from its own wait4."""
    started = time.perf_counter()
    with (cwd / "out.txt").open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        tail = (cwd / "out.txt").read_text(encoding="utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"{' '.join(command[:3])} failed:\n{tail}")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "rss": usage.ru_maxrss / 1024}


def _side(side: str, suite: Path, count: int, base_url: str) -> dict[str, float]:
    """One side in a fresh folder and process."""
    env = {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-local"}
    env.update(NO_COLOR="1", TERM="dumb")
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        if side == "bare":
            command = [sys.executable, "-c", _BARE, str(count), str(CONCURRENCY), base_url]
            return _timed(command, cwd, env)
        promptum = Path(sys.executable).with_name("promptum")
        command = [str(promptum), "run", str(suite), "--model", f"openai/{MODEL}",
                   "--no-judge", "--concurrency", str(CONCURRENCY), "--no-cache",
                   *SIDES[side]]  # fmt: skip
        figures = _timed(command, cwd, env)
        if not (cwd / ".promptum" / "runs.sqlite").stat().st_size:
            raise RuntimeError("the run store is empty: the run was not recorded")
        written = [option for option in SIDES[side] if option != "-o"]
        if not all((cwd / name).is_file() for name in written):
            raise RuntimeError(f"promptum run did not write {', '.join(written)}")
        return figures


def _median_ratio(rounds: list[dict[str, dict[str, float]]], side: str, key: str) -> float:
    return statistics.median(r[side][key] / r["bare"][key] for r in rounds)


def _median_extra(rounds: list[dict[str, dict[str, float]]], side: str, key: str) -> float:
    """Seconds `side` takes beyond ``store`` (its report), median over the rounds."""
    return statistics.median(r[side][key] - r["store"][key] for r in rounds)


def main() -> None:
    """Run every side at each size in interleaved rounds, and print the median ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{CONCURRENCY} concurrent calls, 5 checks per inline case, instant local server;")
    print("each figure: the median over rounds of the side's ratio to the bare loop's")
    print(f"{'cases':>7} {'':>4} {'bare':>7} {'run':>7} {'×bare':>6} {'target':>6} "
          f"{'store':>7} {'×bare':>6} {'junit':>7} {'×bare':>6} {'+json':>7} "
          f"{'+junit':>7}")  # fmt: skip
    with instant_server(REPLY) as base_url, tempfile.TemporaryDirectory() as folder:
        for count in args.sizes:
            suite = Path(folder) / f"suite-{count}.yaml"
            write_suite(suite, count)
            rounds = [
                {side: _side(side, suite, count, base_url) for side in ("bare", *SIDES)}
                for _ in range(args.rounds)
            ]
            for key in ("wall", "cpu"):
                bare = statistics.median(r["bare"][key] for r in rounds)
                runs = {side: statistics.median(r[side][key] for r in rounds) for side in SIDES}
                target = f"{TARGETS[count]:.1f}x" if count in TARGETS and key == "wall" else ""
                print(
                    f"{count:>7} {key:>4} {bare:>6.2f}s {runs['run']:>6.2f}s "
                    f"{_median_ratio(rounds, 'run', key):>5.2f}x {target:>6} "
                    f"{runs['store']:>6.2f}s {_median_ratio(rounds, 'store', key):>5.2f}x "
                    f"{runs['junit']:>6.2f}s {_median_ratio(rounds, 'junit', key):>5.2f}x "
                    f"{_median_extra(rounds, 'run', key):>6.2f}s "
                    f"{_median_extra(rounds, 'junit', key):>6.2f}s"
                )
            bare_mb = statistics.median(r["bare"]["rss"] for r in rounds)
            ratios = ", ".join(
                f"{side} {_median_ratio(rounds, side, 'rss'):.2f}x" for side in SIDES
            )
            print(f"{count:>7} peak RSS: bare {bare_mb:.0f} MB, {ratios}")
    print("+json, +junit: what the report adds to the run (the side minus `store`)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(_serve(sys.argv[2]))
    else:
        main()
