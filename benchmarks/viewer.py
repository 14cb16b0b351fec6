"""The viewer's matrix in headless Chromium: opening, filtering, searching and paging.

Builds a store holding a small run (the baseline, 400 results), a 10,000-result run and a
100,000-result run (cases × two models, one repeat, every tenth failing, every 7th flaky
pair of repeats on the big runs' first model), serves the viewer with uvicorn on
127.0.0.1, and times in headless Chromium (/usr/bin/chromium) how long each action takes
until the page shows its answer: open the matrix, tick "failed", search for a word, go to
the next page and to a page near the end (searching includes the page's 0.2 s pause after
typing). Each figure is the median of `--rounds` (the first open apart: it reads the run's
case order, remembered afterwards); the ratio is against the same action on the baseline
run, measured in the same process.
Also times the JSON API alone for the 100,000-result run, and prints the machine's load.

Run: .venv/bin/python benchmarks/viewer.py [--rounds R] [--big N]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from promptum.checks import CheckDefinition, evaluate_checks
from promptum.store import RunStore
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, JudgeVerdict, Message, RunResult

MODELS = ("local/smollm2", "openai/gpt-4o-mini")
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
STARTED = datetime(2026, 11, 30, tzinfo=UTC)


def template(passed: bool) -> CaseResult:
    """One realistic result (real checks, a judge verdict), copied for every case."""
    text = "The capital of France is Paris. " * 8 if passed else "It is Lyon, of course. " * 8
    completion = Completion(
        text=text, model=MODELS[0], latency_ms=420.0, input_tokens=30, output_tokens=60,
        cost_usd=0.0001,
    )  # fmt: skip
    checks = evaluate_checks([CheckDefinition(type="contains", value="Paris")], completion)
    return CaseResult(
        case_id="x", model=MODELS[0], status="pass" if passed else "fail", suite="geo",
        messages=[Message(role="user", content="Where is the capital of France?")],
        completion=completion, check_results=checks,
        judge=JudgeVerdict(model="local/smollm2", score=0.9 if passed else 0.1, passed=passed),
        tags=["geo"], source="suites/geo.yaml:3",
    )  # fmt: skip


def build(store: RunStore, run_id: str, results: int, hours: int) -> float:
    """Record a run of `results` results through the recorder; returns the seconds taken."""
    good, bad = template(True), template(False)
    started = STARTED + timedelta(hours=hours)
    run = RunResult(
        run_id=run_id, suite="geo", models=list(MODELS), started_at=started,
        finished_at=started + timedelta(minutes=5),
    )  # fmt: skip
    began = time.perf_counter()
    recorder = store.recorder(commit_every_s=1.0)
    recorder.start(run)
    for i in range(results // len(MODELS)):
        for model in MODELS:
            failing = i % 10 == 0 or (model == MODELS[0] and i % 7 == 3)
            base = bad if failing else good
            text = f"{base.completion.text} (answer {i})"
            recorder.add(
                base.model_copy(
                    update={
                        "case_id": f"case-{i:06d}",
                        "model": model,
                        "completion": base.completion.model_copy(update={"text": text}),
                    }
                )
            )
    recorder.finish(run)
    return time.perf_counter() - began


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(store: RunStore) -> Iterator[str]:
    import uvicorn

    from promptum.viewer import create_app

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def until_changed(page: Any, action: Callable[[], Any]) -> float:
    """Seconds from `action` until the page's count line says something new."""
    before = page.locator("#shown").text_content()
    began = time.perf_counter()
    action()
    page.wait_for_function(
        "b => { const t = document.getElementById('shown').textContent;"
        " return t !== b && t !== 'loading…'; }",
        arg=before,
        timeout=120_000,
    )
    return time.perf_counter() - began


def browse(page: Any, url: str, run_id: str, total_cases: int) -> dict[str, float]:
    """The seconds each action on run `run_id`'s matrix takes, until the page shows it."""
    times = {}
    began = time.perf_counter()
    page.goto(f"{url}/runs/{run_id}/matrix")
    page.wait_for_function(
        "() => /of [0-9]+ cases/.test(document.getElementById('shown').textContent)",
        timeout=120_000,
    )
    times["open"] = time.perf_counter() - began
    times["filter failed"] = until_changed(page, lambda: page.check("#f-failed"))
    times["unfilter"] = until_changed(page, lambda: page.uncheck("#f-failed"))
    times["search a word"] = until_changed(page, lambda: page.fill("#q", "answer 4242)"))
    times["clear search"] = until_changed(page, lambda: page.fill("#q", ""))
    times["next page"] = until_changed(page, lambda: page.click("#next"))
    # The last pages: OFFSET makes SQLite step over every case before them.
    offset = max(0, total_cases - 50)
    times["a page near the end"] = until_changed(page, lambda: _jump(page, offset))
    return times


def _jump(page: Any, offset: int) -> None:
    """Page forward to `offset` the way the page does it, without clicking 2,000 times."""
    page.evaluate(
        """o => fetch('/api/runs/' + encodeURIComponent(document.getElementById('filters')
        .dataset.run) + '/matrix?offset=' + o).then(r => r.json()).then(d => {
        document.getElementById('shown').textContent = (o + 1) + '–' + (o + d.rows.length)
        + ' of ' + d.total + ' cases'; })""",
        offset,
    )


def api(url: str, run_id: str, query: str) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(f"{url}/api/runs/{run_id}/matrix?{query}", timeout=120) as r:
        r.read()
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--big", type=int, default=100_000, help="results of the big run")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        sizes = {"small": 400, "10k": 10_000, "big": options.big}
        for hours, (run_id, results) in enumerate(sizes.items()):
            seconds = build(store, run_id, results, hours)
            print(f"recorded {run_id}: {results:,} results in {seconds:.1f} s")
        with serving(store) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            figures: dict[str, dict[str, list[float]]] = {}
            for _ in range(options.rounds):
                for run_id, results in sizes.items():
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    for action, seconds in browse(page, url, run_id, results // 2).items():
                        figures.setdefault(run_id, {}).setdefault(action, []).append(seconds)
                    page.close()
            # The first open of a finished run reads its case order once (then remembered).
            figures = {
                run_id: {"open, first time": [actions["open"][0]], **actions}
                for run_id, actions in figures.items()
            }
            browser.close()
            print(f"\nmedian of {options.rounds} round(s), seconds until the page shows it:")
            print(f"{'action':<22}{'small':>9}{'10k':>9}{'ratio':>8}{'big':>9}{'ratio':>8}")
            for action, small in figures["small"].items():
                base = statistics.median(small)
                row = f"{action:<22}{base:9.3f}"
                for run_id in ("10k", "big"):
                    value = statistics.median(figures[run_id][action])
                    row += f"{value:9.3f}{value / base:8.1f}"
                print(row)
            print(f"\nJSON API alone on the {options.big:,}-result run (median of 3):")
            for label, query in (
                ("first page", ""),
                ("failed", "failed=1"),
                ("flaky", "flaky=1"),
                ("search", "q=answer%204242)"),
                ("tag", "tag=geo&offset=20000"),
                ("must-pass", "must_pass=1"),
                ("tag, failed, search", "tag=geo&failed=1&q=lyon"),
                ("changed since 10k", "changed=10k"),
                ("last page", f"offset={options.big // 2 - 50}"),
            ):
                seconds = statistics.median(api(url, "big", query) for _ in range(3))
                print(f"   {label:<20}{seconds * 1000:8.1f} ms")
            # Trends compare consecutive runs (loading both whole) once per finished pair.
            for label in ("trends, first view", "trends, again"):
                began = time.perf_counter()
                with urllib.request.urlopen(f"{url}/trends", timeout=120) as answer:
                    answer.read()
                print(f"   {label:<20}{(time.perf_counter() - began) * 1000:8.1f} ms")
    print("\nload:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print("cpus:", os.cpu_count())


if __name__ == "__main__":
    main()
