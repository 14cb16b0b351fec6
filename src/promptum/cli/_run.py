"""`promptum run`: run suites, show progress and a summary, write reports, exit 0/1/2/130."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from promptum.cli._console import exit_on_user_error, make_console
from promptum.cli._judge import low_agreement
from promptum.cli._options import (
    FactOption,
    RunOptions,
    asr_bounds,
    at_most_a_week,
    output_help,
    timeout_help,
)

if TYPE_CHECKING:
    from rich.console import Console

    from promptum.cli._heap import HeapFreezer
    from promptum.providers import ClientOptions
    from promptum.reporting import ReportFormat
    from promptum.runner import TestCase
    from promptum.session import Session
    from promptum.sinks import ResultSink
    from promptum.store import RunStore
    from promptum.suites import Suite
    from promptum.values.asr_bounds import AsrBounds
    from promptum.values.run_result import CaseResult, RunResult

# Exit 2 (invalid input or usage) also comes from click and from exit_on_user_error.
EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
JOURNAL_DIR = Path(".promptum") / "runs"
"""Where finished results are journalled for `--resume` (under the working directory)."""
STORE_COMMIT_EVERY_S = 0.25
"""Results finishing closer together are committed to the run store together: a commit per
result cost more than the rest of what a result costs the run. A killed process loses at
most this much from the store, never from the resume journal, which `--resume` reads."""


def _selected(
    case: TestCase, patterns: Sequence[str], tags: Sequence[str], prompts: Sequence[str]
) -> bool:
    if prompts and case.variant not in prompts:
        return False
    # A pattern matches the case's own id or its ``suite/id``.
    ids = (case.id, case.key)
    if patterns and not any(fnmatch.fnmatchcase(i, p) for p in patterns for i in ids):
        return False
    return not tags or any(tag in case.tags for tag in tags)


def _check_prompts(suites: Sequence[Suite], prompts: Sequence[str]) -> None:
    """Refuse a --prompt naming no variant of the suites: it would silently run nothing."""
    from promptum.errors import ConfigError
    from promptum.suites import unknown_variant

    # The suites' variant names: reading every case (each row of a data file) is not needed.
    problem = unknown_variant(prompts, (name for suite in suites for name in suite.variants))
    if problem is not None:
        raise ConfigError(problem)


def _max_asr(given: Sequence[str], session: Session) -> AsrBounds:
    """The ``--max-asr`` bounds, each naming a goal the run's red-team cases have."""
    from promptum.errors import ConfigError
    from promptum.values.asr_bounds import AsrBounds, goals_of

    bounds = AsrBounds.parse(given)
    problem = bounds.unknown_goal(goals_of(case.tags for case in session.tests))
    if problem is not None:
        raise ConfigError(problem)
    return bounds


def _refuse_unjudged_bounds(session: Session) -> None:
    """Refuse an ASR bound on attacks only the judge detects, when --no-judge turns it off."""
    from promptum.errors import ConfigError
    from promptum.values.asr_bounds import goals_of

    goals = goals_of(case.tags for case in session.tests)
    if session.max_asr is not None:
        for _, why in session.max_asr.unjudged(goals):
            raise click.UsageError(f"--{why}")
    for suite in session.suites:
        for goal, why in suite.max_asr.unjudged(goals):
            where = "gate.max_asr" if goal is None else f"gate.max_asr.{goal}"
            raise ConfigError(f"{suite.path}: {where}: {why}")


def _keep_selected_suites(session: Session) -> None:
    """Keep the suites a selected case is from: the run's header and record name only them."""
    chosen = {case.suite for case in session.tests}
    session.suites = [suite for suite in session.suites if suite.name in chosen]


def _client_options(options: RunOptions) -> ClientOptions:
    """The model client's settings the command line gives (the rest: the library's defaults)."""
    from promptum.providers import ClientOptions

    given: dict[str, Any] = {"cache": not options.no_cache}
    if options.timeout is not None:
        given["timeout_s"] = options.timeout
    return ClientOptions(**given)


def _default_concurrency() -> int:
    """The runner's default, read when needed: importing the runner would slow `--help`."""
    from promptum.runner import DEFAULT_CONCURRENCY

    return DEFAULT_CONCURRENCY


def _default_grade_timeout() -> float:
    """The runner's grading deadline, read when needed (as `_default_concurrency`)."""
    from promptum.runner import DEFAULT_GRADE_TIMEOUT_S

    return DEFAULT_GRADE_TIMEOUT_S


def _report_formats(outputs: Sequence[Path]) -> list[tuple[Path, ReportFormat]]:
    """Each ``-o`` path with the format its extension picks, checked before any model call."""
    if not outputs:  # the report formats (~15 ms to import) are not needed
        return []
    from promptum.errors import ConfigError
    from promptum.reporting import format_of

    chosen = []
    for path in outputs:
        try:
            chosen.append((path, format_of(path)))
        except ConfigError as exc:
            raise ConfigError(f"-o {exc}") from None
    return chosen


async def _run_until_signal(
    session: Session, sinks: Sequence[ResultSink], resume: bool, keep_results: bool
) -> RunResult:
    """Run the session; SIGINT or SIGTERM stops it gracefully, keeping what finished."""
    import asyncio

    stop = asyncio.Event()

    def on_signal() -> None:
        if not stop.is_set():
            sys.stderr.write(
                "promptum: stopping; waiting briefly for calls in flight "
                "(press Ctrl-C again to stop at once)\n"
            )
            stop.set()
            return
        # A second signal: the user will not wait for the calls in flight. Every finished
        # result is on disk (resume journal, JSONL reports) once the store commits its last.
        for sink in sinks:
            flush = getattr(sink, "flush", None)
            if flush is not None:
                with contextlib.suppress(Exception):  # nothing is waited for any more
                    flush()
        sys.stderr.write("promptum: stopped at once; finished results are kept (--resume)\n")
        os._exit(EXIT_INTERRUPTED)

    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM)
    for sig in signals:
        loop.add_signal_handler(sig, on_signal)
    try:
        return await session.arun(
            sinks=sinks,
            stop=stop,
            journal_dir=JOURNAL_DIR,
            resume=resume,
            keep_results=keep_results,
        )
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


class _WatchedSink:
    """A sink whose failure is remembered, so the run neither claims its output nor exits 0."""

    def __init__(self, sink: ResultSink, what: str, done: str) -> None:
        self.sink = sink
        self.what = what
        """What the sink writes, as the summary names it (``r.jsonl``, ``run store ...``)."""
        self.done = done
        """What the summary says once it is written; ``{run_id}`` is filled in."""
        self.failed = False

    def _call(self, event: str, *arguments: Any) -> None:
        try:
            getattr(self.sink, event)(*arguments)
        except Exception:
            self.failed = True
            raise  # the runner drops the sink and records the reason as a warning

    def start(self, run: RunResult) -> None:
        """Pass on the start of the run."""
        self._call("start", run)

    def add(self, result: CaseResult) -> None:
        """Pass on one result."""
        self._call("add", result)

    def add_at(self, result: CaseResult, position: int) -> None:
        """Pass on one result with its place in the plan, to a sink that wants it."""
        if hasattr(self.sink, "add_at"):
            self._call("add_at", result, position)
        else:
            self._call("add", result)

    def finish(self, run: RunResult) -> None:
        """Pass on the end of the run."""
        self._call("finish", run)

    def flush(self) -> None:
        """Write what the sink holds back, if it holds any back (the run store)."""
        if hasattr(self.sink, "flush"):
            self._call("flush")


def _suite_paths(console: Console, given: Sequence[Path]) -> tuple[list[Path], dict[Path, str]]:
    """The suites the paths name (folders searched) and their names; says which were skipped."""
    from promptum.cli._console import escape
    from promptum.suites import find_suites

    found = find_suites(given)
    if any(path.is_dir() for path in given) and list(given) != found.suites:
        console.print(f"Suites: {escape(', '.join(map(str, found.suites)))}", soft_wrap=True)
    for path, reason in found.skipped:
        console.print(f"[dim]skipped {escape(str(path))}: {escape(reason)}[/]", soft_wrap=True)
    return found.suites, found.names


def _execute(console: Console, options: RunOptions) -> int:
    from promptum.cli._heap import collector_paused

    with collector_paused() as freezer:
        return _load_and_run(console, options, freezer)


def _load_and_run(console: Console, options: RunOptions, freezer: HeapFreezer) -> int:
    import asyncio

    from promptum.cli._console import ProgressDisplay, escape, print_summary
    from promptum.errors import ConfigError
    from promptum.foundations.redaction import environment_secrets, scrub
    from promptum.gate import decide
    from promptum.session import Session
    from promptum.store import RunStore
    from promptum.suites import load_suites

    executor = None
    if options.executor == "ray":  # checked first: a missing extra is said before any loading
        from promptum.executors import RayExecutor

        executor = RayExecutor(address=options.address)
    reports = _report_formats(options.outputs)
    paths, names = _suite_paths(console, options.paths)
    session = Session(
        concurrency=options.concurrency,
        client_options=_client_options(options),
        fail_under=options.fail_under,
        executor=executor,
        grade_timeout_s=options.grade_timeout or _default_grade_timeout(),
    )
    for suite in load_suites(paths, names):
        session.add_suite(suite)
    patterns, tags, prompts = options.patterns, options.tags, options.prompts
    if prompts:
        _check_prompts(session.suites, prompts)
    if patterns or tags or prompts:  # else every case is kept, and none need be read here
        session.select(lambda case: _selected(case, patterns, tags, prompts))
        _keep_selected_suites(session)
    if not session.tests:
        raise ConfigError("no case matches the given --filter/--tag/--prompt")
    if options.max_asr:
        session.max_asr = _max_asr(options.max_asr, session)
    if options.no_judge:
        _refuse_unjudged_bounds(session)
    overrides: dict[str, Any] = {"models": options.models, "repeat": options.repeat}
    if options.no_judge:
        overrides["judge"] = None
    elif options.judge:
        overrides["judge"] = options.judge
    session.override(**overrides)

    store = None if options.no_store else RunStore()
    recorders: list[_WatchedSink] = []
    if store is not None:  # the run history: `promptum runs`, `compare`
        recorded = f"recorded as run {{run_id}} in {store.path}"
        history = store.recorder(commit_every_s=STORE_COMMIT_EVERY_S)
        recorders.append(_WatchedSink(history, f"the run store {store.path}", recorded))
    # A format that streams (JSONL) is written as results arrive, so an interrupted or killed
    # run keeps it; the others are rendered once the run is over.
    for path, report_format in reports:
        if report_format.sink is not None:
            sink = report_format.sink(path)
            recorders.append(_WatchedSink(sink, str(path), f"wrote {path} as results arrived"))
    rendered = [
        (path, report_format) for path, report_format in reports if not report_format.streams
    ]
    sinks: list[ResultSink] = [freezer, ProgressDisplay(console), *recorders]
    # With the store on, results stream: memory stays flat at any size and whole-run
    # reports are written from the store afterwards. Prompt variants keep them, as the
    # summary compares the variants case by case.
    streams = store is not None and not any(suite.variants for suite in session.suites)
    run = asyncio.run(_run_until_signal(session, sinks, options.resume, not streams))
    results: Callable[[], Iterator[CaseResult]] | str | None = None
    stored: Callable[[], Iterator[str]] | None = None
    if streams and store is not None:
        results = _stored_results(store, run, recorders[0])
        stored = partial(store.iter_result_json, run.run_id)  # recorded by this very process

    print_summary(console, run)
    secrets = environment_secrets()
    for warning in run.warnings:
        console.print(f"[yellow]warning:[/] {escape(scrub(warning, secrets))}")
    for warning in low_agreement(store, run) if store is not None else ():  # docs/calibration.md
        console.print(f"[yellow]warning:[/] {escape(warning)}")
    unwritten = _write_reports(console, run, rendered, options.summary_md, results, stored)
    for recorder in recorders:
        if recorder is recorders[0] and isinstance(results, str):
            unwritten += 1
            console.print(f"[red]error:[/] {escape(f'{recorder.what} {results}')}")
        elif recorder.failed:
            unwritten += 1
            console.print(
                f"[red]error:[/] {escape(recorder.what)} is incomplete: writing it failed "
                "(see the warning above)"
            )
        else:
            console.print(escape(recorder.done.replace("{run_id}", run.run_id)))
    if not run.complete:
        console.print(
            f"[yellow]Interrupted:[/] {run.result_count} of {run.planned_results} "
            "results finished and were kept. Run the same command with --resume to finish."
        )
    gate = decide(run)
    style = "green" if gate.passed else "red"
    console.print(f"[{style}]{escape(gate.line)}[/]", highlight=False, soft_wrap=True)
    if not run.complete:
        return EXIT_INTERRUPTED
    if unwritten:
        return EXIT_USAGE
    return EXIT_PASSED if gate.passed else EXIT_FAILED


def _stored_results(
    store: RunStore, run: RunResult, recorder: _WatchedSink
) -> Callable[[], Iterator[CaseResult]] | str:
    """A streamed run's results, read back from the store when asked; or why they cannot be.

    Reports are written from the store only when it holds every result the run counted:
    one written from a store that failed halfway would show a gate other than the run's.
    """
    from promptum.errors import PromptumError

    if recorder.failed:
        return "failed during the run and does not hold every result"
    try:
        stored = store.summary(run.run_id).total
    except PromptumError as exc:
        return f"cannot give the run's results back ({exc})"
    if stored != run.result_count:
        return f"holds {stored} of the run's {run.result_count} results"
    return lambda: store.iter_results(run.run_id)


def _write_reports(
    console: Console,
    run: RunResult,
    reports: Sequence[tuple[Path, ReportFormat]],
    summary_md: Path | None,
    results: Callable[[], Iterator[CaseResult]] | str | None,
    stored: Callable[[], Iterator[str]] | None = None,
) -> int:
    """Write every report after the summary; one that cannot be written stops no other.

    `results` reads a streamed run's results back (from the store), in plan order; a text
    says why the store cannot, and no whole-run report is then written. `stored` reads the
    same results as stored, for the formats written from that JSON without validating it.
    """
    targets = [(path, report_format.name) for path, report_format in reports]
    if summary_md is not None:
        targets.append((summary_md, "md"))
    if not targets:  # as `_report_formats`: nothing of the reports is imported
        return 0
    from promptum.cli._console import escape
    from promptum.errors import PromptumError
    from promptum.reporting import write_report

    unwritten = 0
    for path, fmt in targets:
        if isinstance(results, str):
            unwritten += 1
            problem = f"could not write {path}: it is written from the run store, which {results}"
            console.print(f"[red]error:[/] {escape(problem)}")
            continue
        try:
            write_report(run, path, fmt, results=results, stored=stored)
        except (OSError, PromptumError) as exc:
            unwritten += 1
            problem = f"could not write {path}: {exc}"
            console.print(f"[red]error:[/] {escape(problem)}")
        else:
            console.print(f"wrote {escape(str(path))}")
    return unwritten


@click.command("run")
# Not `readable`: a file that cannot be read is reported by loading it, with the others.
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, readable=False))
@click.option(
    "-m",
    "--model",
    "models",
    multiple=True,
    help="Run on this model instead (repeatable); cases a target answers keep it.",
)
@click.option("--judge", metavar="MODEL", help="Judge responses with this model.")
@click.option("--no-judge", is_flag=True, help="Do not judge, even if a suite has a judge.")
@click.option(
    "-c", "--concurrency", cls=FactOption, type=click.IntRange(min=1),
    default=_default_concurrency, show_default=True,
    help="Model calls in flight at once (each provider may allow fewer).",
)  # fmt: skip
@click.option("--repeat", type=click.IntRange(min=1), help="Run every case N times.")
@click.option(
    "-k", "--filter", "patterns", multiple=True, metavar="GLOB", help="Only cases whose id matches."
)
@click.option("-t", "--tag", "tags", multiple=True, help="Only cases with this tag (repeatable).")
@click.option(
    "-p", "--prompt", "prompts", multiple=True, metavar="VARIANT",
    help="Only this prompt variant of the suites' `prompts:` (repeatable).",
)  # fmt: skip
@click.option(
    "--fail-under", type=click.FloatRange(0, 1), metavar="RATE",
    help="Exit 0 when the pass rate (0-1) is at least RATE, even with failures.",
)  # fmt: skip
@click.option(
    "--max-asr", "max_asr", multiple=True, metavar="[GOAL=]RATE", callback=asr_bounds,
    help="Fail when red-team cases' attack success rate (0-1) is above RATE; GOAL=RATE bounds "
    "one goal (repeatable). See docs/redteam.md.",
)  # fmt: skip
@click.option("--no-cache", is_flag=True, help="Call the models even for cached requests.")
@click.option(
    "--timeout", cls=FactOption, type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
    callback=at_most_a_week,
    help_text=timeout_help,
)  # fmt: skip
@click.option(
    "--grade-timeout", cls=FactOption, type=click.FloatRange(min=0, min_open=True),
    callback=at_most_a_week,
    metavar="SECONDS", default=_default_grade_timeout, show_default=True,
    help="Seconds grading one response may take (checks, not the judge); then it is an error.",
)  # fmt: skip
@click.option(
    "-o", "--output", "outputs", cls=FactOption, multiple=True, type=click.Path(path_type=Path),
    help_text=output_help,
)  # fmt: skip
@click.option(
    "--summary-md", type=click.Path(path_type=Path), help="Write a Markdown summary (for CI)."
)
@click.option("--resume", is_flag=True, help="Continue an interrupted run of the same cases.")
@click.option("--no-store", is_flag=True, help="Do not record the run in the run history.")
@click.option(
    "--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
    help="Where cases run: this process, or Ray actors (pip install 'promptum[ray]').",
)  # fmt: skip
@click.option(
    "--address", metavar="ADDR",
    help="With --executor ray: the Ray cluster to join (e.g. auto); default: start Ray here.",
)  # fmt: skip
@click.option(
    "--watch", is_flag=True,
    help="Run again whenever a suite, prompt, data file or Python module changes (Ctrl-C stops).",
)  # fmt: skip
def run_command(**params: Any) -> None:
    """Run suites: every response checked, asserted, judged and summarised.

    Exit codes: 0 all passed (or pass rate at least --fail-under; red-team cases within
    --max-asr), 1 failures, 2 invalid input or usage, 130 interrupted.
    """
    options = RunOptions(**params)  # click's parameter names are the fields' names
    if options.judge and options.no_judge:
        raise click.UsageError("--judge and --no-judge exclude each other")
    if options.address and options.executor != "ray":
        raise click.UsageError("--address needs --executor ray")
    console = make_console()
    if options.watch:
        from promptum.cli._watch import watch

        raise SystemExit(watch(console, options))
    try:
        with exit_on_user_error():
            code = _execute(console, options)
    except KeyboardInterrupt:  # before the run started (loading): nothing to keep
        click.echo("interrupted", err=True)
        code = EXIT_INTERRUPTED
    raise SystemExit(code)
