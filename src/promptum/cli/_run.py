"""`promptum run`: run suites, show progress and a summary, write reports, exit 0/1/2/130."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
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
    from promptum.sinks import ResultSink
    from promptum.store import RunStore
    from promptum.suite_run import PlannedRun, RunSettings, SuiteRun

# Exit 2 (invalid input or usage) also comes from click and from exit_on_user_error.
EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
JOURNAL_DIR = Path(".promptum") / "runs"
"""Where finished results are journalled for `--resume` (under the working directory)."""


def _client_options(options: RunOptions) -> ClientOptions:
    """The model client's settings the command line gives (the rest: the library's defaults)."""
    from promptum.providers import ClientOptions

    given: dict[str, Any] = {"cache": not options.no_cache}
    if options.timeout is not None:
        given["timeout_s"] = options.timeout
    given.update(rpm=options.rpm, tpm=options.tpm, batch=options.batch)
    return ClientOptions(**given)


def _default_concurrency() -> int:
    """The runner's default, read when needed: importing the runner would slow `--help`."""
    from promptum.runner import DEFAULT_CONCURRENCY

    return DEFAULT_CONCURRENCY


def _default_grade_timeout() -> float:
    """The runner's grading deadline, read when needed (as `_default_concurrency`)."""
    from promptum.runner import DEFAULT_GRADE_TIMEOUT_S

    return DEFAULT_GRADE_TIMEOUT_S


def _check_outputs(outputs: Sequence[Path]) -> None:
    """Refuse an ``-o`` whose extension picks no report format, before any suite is loaded."""
    if not outputs:  # the report formats (~15 ms to import) are not needed
        return
    from promptum.errors import ConfigError
    from promptum.reporting import format_of

    for path in outputs:
        try:
            format_of(path)
        except ConfigError as exc:
            raise ConfigError(f"-o {exc}") from None


def _settings(options: RunOptions) -> RunSettings:
    """The run's settings as the command line gives them, checked before anything is loaded."""
    from promptum.suite_run import RunSettings
    from promptum.values.asr_bounds import AsrBounds

    executor = None
    if options.executor == "ray":  # checked first: a missing extra is said before any loading
        from promptum.executors import RayExecutor

        executor = RayExecutor(address=options.address)
    _check_outputs(options.outputs)
    return RunSettings(
        models=options.models,
        judge=False if options.no_judge else options.judge,
        repeat=options.repeat,
        patterns=options.patterns,
        tags=options.tags,
        prompts=options.prompts,
        fail_under=options.fail_under,
        max_asr=AsrBounds.parse(options.max_asr) if options.max_asr else None,
        concurrency=options.concurrency,
        client_options=_client_options(options),
        grade_timeout_s=options.grade_timeout or _default_grade_timeout(),
        executor=executor,
        outputs=options.outputs,
        summary_md=options.summary_md,
        journal_dir=JOURNAL_DIR,
        resume=options.resume,
    )


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


def _planned(console: Console, options: RunOptions) -> PlannedRun:
    """The suites the command line names, loaded, selected and checked: no model called yet."""
    from promptum.suite_run import UnjudgedBoundError, plan_run
    from promptum.suites import load_suites

    settings = _settings(options)
    paths, names = _suite_paths(console, options.paths)
    try:
        return plan_run(load_suites(paths, names), settings)
    except UnjudgedBoundError as exc:  # the bound is the command line's: a usage error
        raise click.UsageError(f"--{exc}") from None


async def _run_until_signal(
    planned: PlannedRun, store: RunStore | None, sinks: Sequence[ResultSink]
) -> SuiteRun:
    """Run the planned run; SIGINT or SIGTERM stops it gracefully, keeping what finished."""
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
        planned.flush()
        sys.stderr.write("promptum: stopped at once; finished results are kept (--resume)\n")
        os._exit(EXIT_INTERRUPTED)

    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM)
    for sig in signals:
        loop.add_signal_handler(sig, on_signal)
    try:
        return await planned.arun(store=store, sinks=sinks, stop=stop)
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


def _execute(console: Console, options: RunOptions) -> int:
    from promptum.cli._heap import collector_paused

    with collector_paused() as freezer:
        return _load_and_run(console, options, freezer)


def _load_and_run(console: Console, options: RunOptions, freezer: HeapFreezer) -> int:
    import asyncio

    from promptum.cli._console import ProgressDisplay
    from promptum.store import RunStore

    planned = _planned(console, options)
    store = None if options.no_store else RunStore()
    sinks: list[ResultSink] = [freezer, ProgressDisplay(console)]
    outcome = asyncio.run(_run_until_signal(planned, store, sinks))
    return _report(console, outcome)


def _report(console: Console, outcome: SuiteRun) -> int:
    """Say how the run went: summary, warnings, what was written, the gate; its exit code."""
    from promptum.cli._console import escape, print_summary

    run = outcome.run
    print_summary(console, run)
    _print_warnings(console, outcome)
    for written in [*outcome.write_reports(), *outcome.recorded]:
        if written.problem is not None:
            console.print(f"[red]error:[/] {escape(written.problem)}")
        else:
            console.print(escape(written.line))
    if not run.complete:
        console.print(
            f"[yellow]Interrupted:[/] {run.result_count} of {run.planned_results} "
            "results finished and were kept. Run the same command with --resume to finish."
        )
    gate = outcome.gate
    style = "green" if gate.passed else "red"
    console.print(f"[{style}]{escape(gate.line)}[/]", highlight=False, soft_wrap=True)
    if not run.complete:
        return EXIT_INTERRUPTED
    if outcome.problems:
        return EXIT_USAGE
    return EXIT_PASSED if gate.passed else EXIT_FAILED


def _print_warnings(console: Console, outcome: SuiteRun) -> None:
    """The run's warnings, secrets scrubbed, and the judge's low agreement with people's."""
    from promptum.cli._console import escape
    from promptum.foundations.redaction import environment_secrets, scrub

    secrets = environment_secrets()
    for warning in outcome.run.warnings:
        console.print(f"[yellow]warning:[/] {escape(scrub(warning, secrets))}")
    if outcome.store is not None:  # docs/calibration.md
        for warning in low_agreement(outcome.store, outcome.run):
            console.print(f"[yellow]warning:[/] {escape(warning)}")


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
    "-k", "--filter", "patterns", multiple=True, metavar="GLOB",
    help="Only cases whose id matches (repeatable).",
)  # fmt: skip
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
    "--rpm", type=click.IntRange(min=1), metavar="N",
    help="Requests per minute each model endpoint allows, where it states no rpm: of its own.",
)  # fmt: skip
@click.option(
    "--tpm", type=click.IntRange(min=1), metavar="N",
    help="Tokens per minute each model endpoint allows (prompt and answer), where it states none.",
)  # fmt: skip
@click.option(
    "--batch", is_flag=True,
    help="Send the model calls through the providers' batch APIs: half price, answers within "
    "24 h (OpenAI, Anthropic; docs/batch.md).",
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
