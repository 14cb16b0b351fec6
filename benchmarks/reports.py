"""Report rendering: a 2,000 cases × 3 models run in memory, and 100,000 results streamed.

Each format's time is shown as a ratio to `RunResult.model_dump_json()` of the same run,
measured side by side (best of --repeat). With --browser, Chromium's time to load the HTML
report is shown against a naive report of the same run: one <table>, a row per case, a
cell per model with its status and response.

With --scale N, N results are recorded in a run store, and every whole-run format is written
twice, each in a fresh process: from the run loaded with its results (the baseline), and
from `store.iter_results` without keeping them (what a streamed run does). Time, peak RSS
and file size are shown with the streamed/kept ratio, and the two files must be identical;
the counted side's CPU time too (the steadier figure on a busy machine; target for JSON and
JUnit: 0.3 s per 10,000 results).
With --browser too, Chromium opens the N-result HTML report and searches it for one case.

Run: .venv/bin/python benchmarks/reports.py [--cases N] [--browser] [--scale 100000]
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "reporting"))  # the realistic runs the tests use

from report_samples import MODELS, STARTED, big_results, big_run  # noqa: E402

from promptum.reporting import REPORT_FORMATS, write_report  # noqa: E402
from promptum.store import RunStore  # noqa: E402
from promptum.values.run_result import CaseResult, RunResult  # noqa: E402
from promptum.values.tally import RunTally  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WHOLE_RUN = ["html", "xml", "md", "csv", "json"]
"""The formats written after a run; JSONL streams as the run goes."""


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def naive_rows(results: Iterable[CaseResult], models: int) -> Iterable[str]:
    """One <tr> per case of results that come a case at a time, a cell per model."""
    row: list[CaseResult] = []
    for result in results:
        row.append(result)
        if len(row) == models:
            cells = "".join(
                f"<td><b>{r.status}</b> {html.escape(r.completion.error or r.completion.text)}</td>"
                for r in row
            )
            yield f"<tr><th>{html.escape(row[0].case_id)}</th>{cells}</tr>"
            row = []


def naive_table(run: RunResult) -> str:
    rows = "".join(naive_rows(run.results, len(run.models)))
    return f"<!doctype html><meta charset=utf-8><table>{rows}</table>"


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)


def browser_load(report: Path, plain: Path, repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        timings = {}
        for name, path in (("naive table", plain), ("HTML report", report)):
            timings[name] = best(repeat, lambda path=path: page.goto(path.as_uri()))
        browser.close()
    base = timings["naive table"]
    for name, seconds in timings.items():
        print(f"  {name:<12} {seconds * 1000:8.0f} ms {seconds / base:5.1f}×  load in Chromium")


def in_memory(args: argparse.Namespace) -> None:
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


# --scale: N results in a run store, reports written kept and streamed in fresh processes.


def record(store: RunStore, results: int) -> RunResult:
    """Record a run of about `results` results (3 models) in `store`, made one at a time."""
    cases = -(-results // len(MODELS))
    run = RunResult(
        run_id="scale",
        suite="scale suite",
        models=list(MODELS),
        started_at=STARTED,
        finished_at=STARTED + timedelta(hours=2),
        planned_results=cases * len(MODELS),
        # Given, so the recorder does not ask git and the facts are known to both sides.
        git_commit="0" * 40,
        git_dirty=False,
    )
    recorder = store.recorder()
    recorder.start(run)
    for position, result in enumerate(big_results(cases)):
        recorder.add_at(result, position)
    recorder.finish(run)
    return run


def high_water_mb() -> float:
    """This process's peak RSS: VmHWM, which (unlike ru_maxrss) starts afresh at exec."""
    status = Path("/proc/self/status").read_text(encoding="ascii")
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def child(mode: str, fmt: str, database: str, facts: str, out: str) -> None:
    """Write one report in this (fresh) process and print its time and peak RSS as JSON."""
    floor = high_water_mb()
    store = RunStore(database)
    shell = RunResult.model_validate_json(Path(facts).read_text(encoding="utf-8"))
    if mode == "counted":  # as `promptum run` has it: the run brings the tally it counted
        shell.streamed(RunTally.of(store.iter_results(shell.run_id), shell.models))
    # `promptum run` also hands the results' stored JSON over, which JSON and JUnit are
    # written from without validating each result again.
    stored = partial(store.iter_result_json, shell.run_id) if mode == "counted" else None
    start, cpu = time.perf_counter(), time.process_time()
    if mode == "kept":
        write_report(store.load(shell.run_id), out, fmt)
    else:
        # Without a tally ("streamed") the figures are counted in a first pass over the store.
        write_report(
            shell, out, fmt, results=lambda: store.iter_results(shell.run_id), stored=stored
        )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    figures = {"seconds": seconds, "cpu": cpu, "floor_mb": floor, "peak_mb": high_water_mb()}
    print(json.dumps(figures))


def measure(mode: str, fmt: str, database: Path, facts: Path, out: Path) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", mode, fmt, str(database), str(facts), str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def browser_search(report: Path, plain: Path, case_id: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        start = time.perf_counter()
        page.goto(plain.as_uri(), timeout=300_000)
        naive = time.perf_counter() - start
        start = time.perf_counter()
        page.goto(report.as_uri(), timeout=300_000)
        page.wait_for_function("document.getElementById('shown').textContent !== ''")
        opened = time.perf_counter() - start
        shown = page.locator("#shown").inner_text()
        info = page.locator("#page-info").inner_text()
        rows = page.locator("#matrix .row").count()
        start = time.perf_counter()
        page.fill("#search", case_id)
        page.wait_for_function("document.querySelectorAll('#matrix .row').length === 1")
        searched = time.perf_counter() - start
        found = page.locator("#matrix .row .case-id").all_text_contents()
        start = time.perf_counter()
        page.fill("#search", "rate limited")  # the input handler filters before fill returns
        again = time.perf_counter() - start
        errors = page.locator("#shown").inner_text()
        heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0")
        browser.close()
    print(f"  naive table  {naive * 1000:8.0f} ms   1.0×  load in Chromium (baseline)")
    print(f"  HTML report  {opened * 1000:8.0f} ms {opened / naive:5.2f}×  open until drawn")
    print(f"    shows {rows} rows; '{shown}'; '{info}'")
    print(f"    JS heap after opening: {heap / 1e6:.0f} MB")
    print(f"  search {case_id!r}: {searched * 1000:.0f} ms (first search builds the index)")
    print(f"    found {found}")
    print(f"  search 'rate limited': {again * 1000:.0f} ms; {errors}")


def at_scale(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        store = RunStore(where / "runs.sqlite")
        start = time.perf_counter()
        run = record(store, args.scale)
        facts = where / "facts.json"
        facts.write_text(run.model_dump_json(), encoding="utf-8")
        print(
            f"{run.planned_results:,} results ({run.planned_results // len(MODELS):,} cases × "
            f"{len(MODELS)} models) recorded in a run store in {time.perf_counter() - start:.0f} s"
        )
        base = measure("kept", "json", where / "runs.sqlite", facts, where / "floor.json")
        print(
            "  each report in a fresh process. kept: store.load() then write_report(run) (the"
            " baseline);\n  streamed: write_report(shell, results=store.iter_results), figures"
            " counted in a first pass;\n  counted: as after `promptum run`: the run's tally given"
            " (its counting not timed) and the stored JSON too"
        )
        print(f"  a process's peak RSS before any work: {base['floor_mb']:.0f} MB")
        print(
            f"  {'format':<6} {'kept s':>7} {'streamed':>13} {'counted':>13}"
            f" {'kept MB':>8} {'streamed MB':>13} {'size MB':>8}  identical  counted CPU s"
        )
        for fmt in WHOLE_RUN:
            outs = {mode: where / f"{mode}.{fmt}" for mode in ("kept", "streamed", "counted")}
            got = {m: measure(m, fmt, where / "runs.sqlite", facts, o) for m, o in outs.items()}
            kept, streamed, counted = got["kept"], got["streamed"], got["counted"]
            same = len({path.read_bytes() for path in outs.values()}) == 1
            print(
                f"  {fmt:<6} {kept['seconds']:7.1f}"
                f" {streamed['seconds']:6.1f} {streamed['seconds'] / kept['seconds']:5.2f}×"
                f" {counted['seconds']:6.1f} {counted['seconds'] / kept['seconds']:5.2f}×"
                f" {kept['peak_mb']:8.0f}"
                f" {streamed['peak_mb']:6.0f} {streamed['peak_mb'] / kept['peak_mb']:5.2f}×"
                f" {outs['streamed'].stat().st_size / 1e6:8.1f}  {'yes' if same else 'NO ':<9}"
                f"  {counted['cpu']:6.2f}"
            )
        if args.browser:
            plain = where / "plain.html"
            with plain.open("w", encoding="utf-8") as out:
                out.write("<!doctype html><meta charset=utf-8><table>")
                out.writelines(naive_rows(store.iter_results(run.run_id), len(MODELS)))
                out.write("</table>")
            case_id = f"case-{(run.planned_results // len(MODELS)) * 2 // 3:04d}"
            browser_search(where / "streamed.html", plain, case_id)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:7])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--browser", action="store_true", help="also time Chromium loading it")
    parser.add_argument("--scale", type=int, help="also stream N results from a run store")
    args = parser.parse_args()
    in_memory(args)
    if args.scale:
        at_scale(args)


if __name__ == "__main__":
    main()
