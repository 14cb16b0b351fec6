"""What a promptum run costs over the bare ``openai`` SDK, measured side by side in one run.

1,000 and 10,000 cases, each with 5 deterministic checks, at concurrency 16, against a bare
loop of the openai SDK making the same calls at the same concurrency, measured two ways:

- whole processes, what a user waits for: ``promptum run suite.yaml -c 16 --no-cache
  --no-judge`` (loading the suite, the run store on, one progress line per result to a file)
  against a process that imports the SDK and makes the calls. Target: within 1.2x at 1,000
  cases and 1.1x at 10,000. The bare loop calls ``client.chat.completions.create``, as SDK
  users write it; promptum sends its body, already JSON, through the SDK's low-level
  ``client.post``, which skips ``create``'s typed-parameter transform, and reads the few
  fields it needs from the answer's JSON rather than the SDK's typed ``ChatCompletion``
  (built without validation, yet a twentieth of the bare loop's CPU). A second bare loop
  (``lean``) makes the ``post`` calls with the typed answer, so promptum's own cost shows
  apart from the SDK's.
  The cases are CSV rows with the checks once under ``defaults``, as large sets are kept,
  and, for comparison, inline in the YAML suite with their checks (parsing that much YAML
  alone costs about a tenth of the bare loop's time). A third side (``reports``) is the
  command users write: inline cases and ``-o r.json -o junit.xml``, the whole-run reports
  written from the store after the run.
  Each whole process's peak RSS too, read from its own ``wait4`` rusage (target: within
  1.3x the bare loop's).
- in process: `Session.arun` (the core `promptum run` uses) against the bare loop, timed
  around the calls only, with the growth of peak RSS: memory that grows only by the results.

Both talk to a minimal asyncio HTTP server in its own process that answers instantly (the
test suite's fault server, built on http.server, tops out near 200 calls/s here and would
hide the overhead), so the figures are promptum's own. Each side runs in a fresh child
process, alternating, and each figure is the best of its repeats (other load on the machine
only ever adds time).

Run from the repository root: ``.venv/bin/python benchmarks/run_overhead.py`` (a few minutes).
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = (1_000, 10_000)
REPEATS = {1_000: 5, 10_000: 2}
CONCURRENCY = 16
LAYOUTS = ("csv", "inline")
REPORTS = ("r.json", "junit.xml")
"""The reports of the ``reports`` side: inline cases, as users write the command."""
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


async def _bare(base_url: str, count: int, lean: bool = False) -> dict[str, float]:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

    client = AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    limit = asyncio.Semaphore(CONCURRENCY)
    texts: list[str] = []

    async def one(index: int) -> None:
        messages = [{"role": "user", "content": f"question {index}"}]
        async with limit:
            if lean:  # what promptum sends: the same request, without `create`'s transform
                body = {"model": "m", "messages": messages}
                response = await client.post("/chat/completions", body=body, cast_to=ChatCompletion)
            else:
                response = await client.chat.completions.create(model="m", messages=messages)
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


def _children_cpu_s() -> float:
    """CPU seconds of every finished child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str], cwd: Path, log: Path | None = None) -> tuple[int, str, str, float]:
    """Run `command`: its exit code, output (or into `log`), error output and peak RSS in MB.

    The peak is the process's own (`wait4`), where RUSAGE_CHILDREN is the largest of all.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        with (log or Path(os.devnull)).open("w") as logged:
            process = subprocess.Popen(command, cwd=cwd, stdout=logged if log else out, stderr=err)
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return process.returncode, out.read(), err.read(), usage.ru_maxrss / 1024


def _child(side: str, base_url: str, count: int) -> dict[str, float]:
    """One side in a fresh process: its own figures, and the wall time of the whole process."""
    cpu, started = _children_cpu_s(), time.perf_counter()
    code, out, err, peak = _run(
        [sys.executable, __file__, "--child", side, base_url, str(count)], ROOT
    )
    process, cpu = time.perf_counter() - started, _children_cpu_s() - cpu
    if code != 0:
        raise RuntimeError(f"{side} with {count} cases failed:\n{err[-2000:]}")
    figures: dict[str, float] = json.loads(out)
    return {**figures, "process_seconds": process, "process_cpu_seconds": cpu, "peak_mb": peak}


def _suite(folder: Path, base_url: str, count: int, layout: str) -> Path:
    """The same cases as a suite: in the YAML file, each with its 5 checks (``inline``), or
    as CSV rows with the checks once under ``defaults`` (``csv``, how large sets are kept)."""
    checks = json.dumps(CHECKS)
    head = ["name: bench", "models: [bench/m]", f"endpoints: {{bench: {{base_url: '{base_url}'}}}}"]
    if layout == "inline":
        rows = (
            f"  - {{id: case-{i}, query: 'question {i}', checks: {checks}}}" for i in range(count)
        )
        lines = [*head, "test_cases:", *rows]
    else:
        table = "id,query\n" + "".join(f"case-{i},question {i}\n" for i in range(count))
        (folder / "cases.csv").write_text(table, encoding="utf-8")
        lines = [*head, f"defaults: {{checks: {checks}}}", "cases_from: cases.csv"]
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cli(base_url: str, count: int, layout: str, reports: tuple[str, ...] = ()) -> dict[str, float]:
    """``promptum run`` as a user runs it in CI: store on, progress lines to a log file."""
    with tempfile.TemporaryDirectory() as folder:
        suite = _suite(Path(folder), base_url, count, layout)
        command = [sys.executable, "-m", "promptum", "run", str(suite), "-c", str(CONCURRENCY),
                   "--no-cache", "--no-judge", *(f"-o{report}" for report in reports)]  # fmt: skip
        cpu, started = _children_cpu_s(), time.perf_counter()
        code, _, err, peak = _run(command, Path(folder), Path(folder) / "log.txt")
        process, cpu = time.perf_counter() - started, _children_cpu_s() - cpu
        if code != 0:
            raise RuntimeError(f"promptum run with {count} cases failed:\n{err[-2000:]}")
        if (Path(folder) / ".promptum" / "runs.sqlite").stat().st_size == 0:
            raise RuntimeError("the run store is empty: the run was not recorded")
        missing = [report for report in reports if not (Path(folder) / report).is_file()]
        if missing:
            raise RuntimeError(f"promptum run did not write {', '.join(missing)}")
    return {"process_seconds": process, "process_cpu_seconds": cpu, "peak_mb": peak}


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure at its best over the repeats: other load only ever adds to it."""
    return {key: min(run[key] for run in runs) for key in runs[0]}


def main() -> None:
    """Run every side at both sizes, alternating, and print the ratios."""
    rows = []
    with instant_server() as base_url:
        for count in SIZES:
            sides: dict[str, list[dict[str, float]]] = {
                "bare": [], "lean": [], "csv": [], "inline": [], "reports": [], "session": []
            }  # fmt: skip
            for _ in range(REPEATS[count]):
                sides["bare"].append(_child("bare", base_url, count))
                sides["lean"].append(_child("lean", base_url, count))
                for layout in LAYOUTS:
                    sides[layout].append(_cli(base_url, count, layout))
                sides["reports"].append(_cli(base_url, count, "inline", REPORTS))
                sides["session"].append(_child("promptum", base_url, count))
            rows.append((count, {side: _best(runs) for side, runs in sides.items()}))
    print(f"{CONCURRENCY} concurrent calls, {len(CHECKS)} checks per case, instant local server")
    print("whole process: `promptum run` (store on, no cache, no judge) / a bare SDK script;")
    print("cases as CSV rows with the checks under `defaults`, or inline in the YAML suite;")
    print("wall time, and CPU time (steadier on a busy machine: the server has its own process);")
    print("lean: the bare loop through `client.post`, as promptum calls the SDK")
    print(f"reports: inline cases with {' '.join(f'-o {r}' for r in REPORTS)}, as users write it")
    print(f"{'cases':>7} {'':>5} {'bare s':>7} {'lean s':>7} {'csv s':>7} {'×bare':>6} "
          f"{'×lean':>6} {'inline s':>9} {'×bare':>6} {'×lean':>6} {'reports s':>10} {'×bare':>6} "
          f"{'target':>7}")  # fmt: skip
    for (count, sides), target in zip(rows, (1.2, 1.1), strict=True):
        for label, key in (("wall", "process_seconds"), ("cpu", "process_cpu_seconds")):
            bare, lean, csv, inline, reports = (
                sides[s][key] for s in ("bare", "lean", "csv", "inline", "reports")
            )
            print(
                f"{count:>7} {label:>5} {bare:>7.2f} {lean:>7.2f} {csv:>7.2f} "
                f"{csv / bare:>5.2f}x {csv / lean:>5.2f}x {inline:>9.2f} "
                f"{inline / bare:>5.2f}x {inline / lean:>5.2f}x {reports:>10.2f} "
                f"{reports / bare:>5.2f}x {target:>6.1f}x"
            )
    print("peak RSS of each whole process (MB; target: within 1.3x the bare loop)")
    print(f"{'cases':>7} {'bare':>7} {'csv':>7} {'×bare':>6} {'inline':>7} {'×bare':>6} "
          f"{'reports':>8} {'×bare':>6}")  # fmt: skip
    for count, sides in rows:
        bare, csv, inline, reports = (
            sides[s]["peak_mb"] for s in ("bare", "csv", "inline", "reports")
        )
        print(
            f"{count:>7} {bare:>7.1f} {csv:>7.1f} {csv / bare:>5.2f}x {inline:>7.1f} "
            f"{inline / bare:>5.2f}x {reports:>8.1f} {reports / bare:>5.2f}x"
        )
    print("in process: Session.arun / the bare loop, timed around the calls")
    print(f"{'cases':>7} {'bare s':>8} {'promptum s':>11} {'ratio':>6} {'setup s':>8} "
          f"{'bare +MB':>9} {'promptum +MB':>13}")  # fmt: skip
    for count, sides in rows:
        bare, ours = sides["bare"], sides["session"]
        ratio = ours["seconds"] / bare["seconds"]
        print(
            f"{count:>7} {bare['seconds']:>8.2f} {ours['seconds']:>11.2f} {ratio:>5.2f}x "
            f"{ours['setup_seconds']:>8.2f} {bare['growth_mb']:>9.1f} {ours['growth_mb']:>13.1f}"
        )
    (small, small_sides), (large, large_sides) = rows
    growth = large_sides["session"]["growth_mb"] - small_sides["session"]["growth_mb"]
    print("setup: building the cases in Python")
    print(
        f"memory: {growth * 1024 / (large - small):.2f} KB of peak RSS per extra result, for "
        f"results of {large_sides['session']['result_json_kb']:.2f} KB as JSON (message, "
        "completion, 5 check results)"
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        asyncio.run(_serve())
    elif len(sys.argv) == 5 and sys.argv[1] == "--child":
        side, url, size = sys.argv[2], sys.argv[3], int(sys.argv[4])
        if side == "promptum":
            figures = asyncio.run(_promptum(url, size))
        else:
            figures = asyncio.run(_bare(url, size, lean=side == "lean"))
        print(json.dumps(figures))
    else:
        main()
