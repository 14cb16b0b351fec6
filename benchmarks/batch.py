"""Batch mode against a fake batch API: `promptum run --batch` beside the ordinary run.

The server (`tests.support.batch_server`, on 127.0.0.1 in a thread of this process) is an
OpenAI Batch API and Anthropic Message Batches whose batches end `--delay` seconds after
they are created, beside live chat calls; it counts batches submitted, requests they held,
polls and live calls. The built-in ``openai`` and ``anthropic`` endpoints are pointed at it
through ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``. For each provider, each side is a
fresh server and a fresh ``promptum run`` (a process of its own, ``--no-cache --no-store
-c 16 -o r.json``) of the same `--cases` inline cases, half of which fail their check:

- ``live``: the ordinary run, every call made live;
- ``batch``: ``--batch``;
- ``killed``: ``--batch`` killed (SIGKILL) once it has polled its last batch, then run
  again with ``--resume`` once the batch has ended.

With ``--judge`` every case is judged too, by the other provider's model: its calls go in a
second round of batches, and ``killed`` is killed while that round is polled.

Each line: the run's wall time, batches submitted, requests they held, live calls, polls,
whether every case's verdict (and judge's scores) is the live run's, and the run's cost as
a share of the live run's (from the JSON report). Issue 37: one submission (two judged),
the same verdicts, cost 0.5x; killed and resumed, no submission more.

Run from the repository root: ``.venv/bin/python benchmarks/batch.py`` (2,000 cases).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.batch_server import BatchServer, batch_server, sdk_environment  # noqa: E402

MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-3-5-haiku-latest"}
JUDGES = {"openai": MODELS["anthropic"], "anthropic": MODELS["openai"]}


def write_suite(path: Path, model: str, count: int, judge: str | None) -> None:
    """`count` inline cases of `model`, every other one expecting what the server never says.

    With a `judge`, each case has an `expected_behavior` it grades.
    """
    lines = [f"models: [{model}]", *([f"judge: {{model: {judge}}}"] if judge else [])]
    behaviour = ", expected_behavior: 'Answers the question'" if judge else ""
    lines += ["test_cases:"] + [
        f"  - {{id: c{i}, query: 'Question {i} about batches?'{behaviour}, "
        f"checks: [{{type: contains, value: '{42 if i % 2 else 43}'}}]}}"
        for i in range(count)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def promptum(folder: Path, server: BatchServer, *extra: str) -> subprocess.Popen[str]:
    """`promptum run suite.yaml` started in `folder`."""
    command = [sys.executable, "-m", "promptum", "run", "suite.yaml", "--no-cache",
               "--no-store", "-c", "16", "-o", "r.json", *extra]  # fmt: skip
    return subprocess.Popen(
        command, cwd=folder, env={**os.environ, **sdk_environment(server)}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def finished(process: subprocess.Popen[str]) -> None:
    """Wait for the run; fail loudly if it did not end as a run with failures does (1)."""
    output, _ = process.communicate(timeout=3600)
    if process.returncode not in (0, 1):
        raise RuntimeError(f"promptum run failed ({process.returncode}):\n{output[-3000:]}")


def kill_once_polled(process: subprocess.Popen[str], server: BatchServer, number: int) -> None:
    """SIGKILL the run once it has submitted its `number`-th batch and looked at it."""
    deadline = time.monotonic() + 600
    while len(server.batches) < number or list(server.batches.values())[-1].polls < 1:
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the batched run never polled its batch {number}")
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(30)


Verdicts = dict[str, tuple[str, list[float]]]


def report(folder: Path) -> tuple[Verdicts, float]:
    """The JSON report's verdict (and judge's scores) per case, and its total cost."""
    data = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    verdicts = {
        r["case_id"]: (r["status"], [g["score"] for g in r["grades"] if g["kind"] == "judge"])
        for r in data["results"]
    }
    return verdicts, sum(r["completion"]["cost_usd"] or 0.0 for r in data["results"])


def side(
    kind: str, name: str, cases: int, delay_s: float, judged: bool
) -> tuple[Verdicts, float, str]:
    """One fresh server and run; its verdicts, cost and figures as a line's start."""
    folder = Path(tempfile.mkdtemp(prefix=f"batch-{name}-"))
    write_suite(folder / "suite.yaml", MODELS[kind], cases, JUDGES[kind] if judged else None)
    rounds = 2 if judged else 1
    with batch_server(delay_s=delay_s) as server:
        started = time.perf_counter()
        if name == "live":
            finished(promptum(folder, server))
        elif name == "batch":
            finished(promptum(folder, server, "--batch"))
        else:
            server.delays[rounds] = 3600.0  # the last round never ends while the run waits
            kill_once_polled(promptum(folder, server, "--batch"), server, rounds)
            server.delays.clear()
            finished(promptum(folder, server, "--batch", "--resume"))
        seconds = time.perf_counter() - started
        counts, live = server.counts, server.live.counts.answered
        verdicts, cost = report(folder)
    figures = (
        f"{kind:9} {name:7} {seconds:7.1f} s  batches {counts['submissions']}  "
        f"held {counts['requests']:5}  live calls {live:5}  polls {counts['polls']:3}"
    )
    return verdicts, cost, figures


def main() -> None:
    """Print each provider's sides, side by side."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=2.0, help="seconds until a batch ends")
    parser.add_argument("--judge", action="store_true", help="judge every case too")
    args = parser.parse_args()
    judged = " judged by the other provider's model" if args.judge else ""
    print(f"{args.cases} cases{judged}; a batch ends {args.delay:g} s after it is created")
    for kind in MODELS:
        baseline, live_cost, figures = side(kind, "live", args.cases, args.delay, args.judge)
        print(f"{figures}  verdicts -          cost 1.00x")
        for name in ("batch", "killed"):
            verdicts, cost, figures = side(kind, name, args.cases, args.delay, args.judge)
            same = "same" if verdicts == baseline else "DIFFER"
            print(f"{figures}  verdicts {same:9} cost {cost / live_cost:.2f}x")


if __name__ == "__main__":
    main()
