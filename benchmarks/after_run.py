"""What a run costs once its answers are known: reports after a streamed run, a warm cache.

Two figures of issue 28, each as a ratio against a baseline checkout measured in the same
run (``--baseline DIR``, a folder holding ``src/promptum``: ``git worktree add /tmp/base
<commit>``, or ``git archive <commit> src | tar -x -C /tmp/base``), each side in fresh
processes, alternating, with its own bytecode cache (``PYTHONPYCACHEPREFIX``; bytecode is
written, as users have it):

- reports: a suite of ``--report-cases`` cases (5 checks each, inline YAML) is run once
  against an instant local server with the run store on, as `promptum run` streams it; then
  each whole-run format is written from the store as `promptum run -o FILE` does after such
  a run (`write_report` reading `store.iter_results`, with the run's tally). Target: JSON of
  10,000 results <= 0.3 s.
- warm cache: ``promptum run suite.yaml`` of ``--cache-cases`` cases, every answer in the
  response cache (the server is stopped: a miss would fail the run), the whole process
  timed, wall and CPU (user + system, the steadier figure on a shared machine). Target:
  1,000 cases <= 0.5 s on the issue's machine, where 82318ce took 1.08 s: against 82318ce
  as the baseline, <= 0.46x.

The machine's load (``uptime``) is printed: on a shared machine compare the ratios, and the
best of the repeats (other load only ever adds time).

Run: .venv/bin/python benchmarks/after_run.py --baseline /tmp/base [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from run_overhead import instant_server  # noqa: E402

FORMATS = ("json", "xml", "html", "csv", "md")
CHECKS = [
    {"type": "contains", "value": "Hello"},
    {"type": "not_contains", "value": "error", "case_insensitive": True},
    {"type": "regex", "value": r"\bserver\b"},
    {"type": "max_length", "value": 500},
    {"type": "max_latency_ms", "value": 5000},
]
CHILD = """
import json, sys, time
from promptum.reporting import write_report
from promptum.store import RunStore
from promptum.values.tally import RunTally
store = RunStore(sys.argv[1])
run_id = store.list_runs(limit=1)[0].run_id
shell = store.load(run_id)
tally = shell.tally()
shell = shell.model_copy(update={"results": []})
shell.streamed(tally)  # as after `promptum run`: the run brings the tally it counted
# What `promptum run` gives: the stored JSON too, on a side that can take it.
raw = getattr(store, "iter_result_json", None)
extra = {} if raw is None else {"stored": lambda: raw(run_id)}
started, cpu = time.perf_counter(), time.process_time()
write_report(shell, sys.argv[2], results=lambda: store.iter_results(run_id), **extra)
print(json.dumps({"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu}))
"""


def _suite(folder: Path, base_url: str, count: int) -> Path:
    """Inline cases with 5 checks each, on an endpoint at `base_url`."""
    checks = json.dumps(CHECKS)
    rows = (f"  - {{id: case-{i}, query: 'question {i}', checks: {checks}}}" for i in range(count))
    head = f"name: bench\nmodels: [bench/m]\nendpoints: {{bench: {{base_url: '{base_url}'}}}}\n"
    path = folder / "suite.yaml"
    path.write_text(head + "test_cases:\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _env(source: Path, side: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(source / "src")
    env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"after-run-pyc-{side}")
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _promptum(folder: Path, env: dict[str, str], *extra: str) -> tuple[float, float, str]:
    """One `promptum run` in `folder`: its wall time, its CPU time and what it printed."""
    command = [sys.executable, "-m", "promptum", "run", "suite.yaml", "-c", "16", "--no-judge"]
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [*command, *extra], cwd=folder, env=env, capture_output=True, text=True, check=False
    )
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"promptum run failed in {folder}:\n{done.stdout[-1500:]}")
    return seconds, cpu, done.stdout


def _stats(times: list[float]) -> str:
    return f"median {statistics.median(times):6.3f} s  best {min(times):6.3f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, required=True, help="a checkout to compare to")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--report-cases", type=int, default=10_000)
    parser.add_argument("--cache-cases", type=int, default=1_000)
    args = parser.parse_args()
    sides = {"baseline": args.baseline.resolve(), "this": ROOT}
    envs = {side: _env(source, side) for side, source in sides.items()}
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        folders = {}
        with instant_server() as base_url:
            for side, env in envs.items():
                for kind, count in (("report", args.report_cases), ("cache", args.cache_cases)):
                    folder = where / f"{side}-{kind}"
                    folder.mkdir()
                    _suite(folder, base_url, count)
                    _promptum(folder, env)  # fills the store and the response cache
                    folders[side, kind] = folder
        print(f"load before: {os.getloadavg()}")
        warm: dict[str, list[float]] = {side: [] for side in sides}
        warm_cpu: dict[str, list[float]] = {side: [] for side in sides}
        reports: dict[tuple[str, str], list[float]] = {}
        reports_cpu: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for side, env in envs.items():
                seconds, cpu, out = _promptum(folders[side, "cache"], env)
                if f"{args.cache_cases} of {args.cache_cases} answers from the cache" not in out:
                    raise RuntimeError(f"{side}: not every answer came from the cache:\n{out}")
                warm[side].append(seconds)
                warm_cpu[side].append(cpu)
                database = folders[side, "report"] / ".promptum" / "runs.sqlite"
                for fmt in FORMATS:
                    out_path = where / f"{side}.{fmt}"
                    done = subprocess.run(
                        [sys.executable, "-c", CHILD, str(database), str(out_path)],
                        env=env, capture_output=True, text=True, check=True,
                    )  # fmt: skip
                    figures = json.loads(done.stdout.splitlines()[-1])
                    reports.setdefault((side, fmt), []).append(figures["seconds"])
                    reports_cpu.setdefault((side, fmt), []).append(figures["cpu"])
        print(f"load after: {os.getloadavg()}")
        print(f"warm-cache re-run of {args.cache_cases:,} cases, whole `promptum run` process:")
        for side in sides:
            print(f"  {side:<9} wall {_stats(warm[side])} | CPU {_stats(warm_cpu[side])}")
        for what, figures in (("wall", warm), ("CPU", warm_cpu)):
            ratio = statistics.median(figures["this"]) / statistics.median(figures["baseline"])
            best = min(figures["this"]) / min(figures["baseline"])
            print(f"  this/baseline {what:<4}: median {ratio:.2f}x  best {best:.2f}x")
        print("  (target: <= 0.5 s on the issue's machine; <= 0.46x with 82318ce as baseline)")
        print(f"whole-run reports of {args.report_cases:,} results after a streamed run:")
        for fmt in FORMATS:
            for what, figures in (("wall", reports), ("CPU", reports_cpu)):
                base, this = figures["baseline", fmt], figures["this", fmt]
                print(
                    f"  {fmt:<5} {what:<4} baseline {_stats(base)} | this {_stats(this)} | "
                    f"{statistics.median(this) / statistics.median(base):.2f}x median, "
                    f"{min(this) / min(base):.2f}x best"
                )
        print("  (target: json <= 0.3 s)")


if __name__ == "__main__":
    main()
