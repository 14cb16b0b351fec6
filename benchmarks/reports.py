"""Report rendering for a 2,000 cases × 3 models run, against plain pydantic JSON export.

Each format's time is shown as a ratio to `RunResult.model_dump_json()` of the same run,
measured side by side (best of --repeat). With --browser, Chromium's time to load the HTML
report is shown against a naive report of the same run: one <table>, a row per case, a
cell per model with its status and response.
Run: .venv/bin/python benchmarks/reports.py [--cases N] [--browser]
"""

from __future__ import annotations

import argparse
import html
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "reporting"))  # the realistic runs the tests use

from report_samples import big_run  # noqa: E402

from promptum.reporting import REPORT_FORMATS  # noqa: E402
from promptum.results import RunResult  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def naive_table(run: RunResult) -> str:
    rows = []
    for case_results in zip(*run.by_model().values(), strict=True):
        texts = [(r.status, r.completion.error or r.completion.text) for r in case_results]
        cells = "".join(f"<td><b>{status}</b> {html.escape(text)}</td>" for status, text in texts)
        rows.append(f"<tr><th>{html.escape(case_results[0].case_id)}</th>{cells}</tr>")
    return f"<!doctype html><meta charset=utf-8><table>{''.join(rows)}</table>"


def browser_load(report: Path, plain: Path, repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        timings = {}
        for name, path in (("naive table", plain), ("HTML report", report)):
            timings[name] = best(repeat, lambda path=path: page.goto(path.as_uri()))
        browser.close()
    base = timings["naive table"]
    for name, seconds in timings.items():
        print(f"  {name:<12} {seconds * 1000:8.0f} ms {seconds / base:5.1f}×  load in Chromium")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--browser", action="store_true", help="also time Chromium loading it")
    args = parser.parse_args()

    run = big_run(args.cases)
    print(f"{len(run.results)} results ({args.cases} cases × {len(run.models)} models)")
    base = best(args.repeat, run.model_dump_json)
    print(f"  {'baseline':<12} {base * 1000:8.0f} ms   1.0×  RunResult.model_dump_json()")
    rendered = {}
    for name, report_format in REPORT_FORMATS.items():
        seconds = best(
            args.repeat, lambda f=report_format: rendered.update({f.name: f.render(run)})
        )
        size = len(rendered[name].encode("utf-8")) / 1e6
        print(f"  {name:<12} {seconds * 1000:8.0f} ms {seconds / base:5.1f}×  {size:6.2f} MB")

    if args.browser:
        with tempfile.TemporaryDirectory() as folder:
            report, plain = Path(folder) / "report.html", Path(folder) / "plain.html"
            report.write_text(rendered["html"], encoding="utf-8")
            plain.write_text(naive_table(run), encoding="utf-8")
            browser_load(report, plain, args.repeat)


if __name__ == "__main__":
    main()
