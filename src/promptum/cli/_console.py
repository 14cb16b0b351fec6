"""What `promptum run` shows: live progress while it runs, a summary table per model at the end.

Every command prints through `make_console`. A terminal gets a progress bar and tables as
wide as the terminal; anything else (CI logs, pipes, files) gets one plain line per result
and tables as wide as their content, never cut. Rich honours ``NO_COLOR``, ``FORCE_COLOR``
and ``TERM=dumb`` on its own. Rich is imported only when something is shown, so
`promptum --help` stays fast.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from promptum.cli._asr import print_asr, print_lead_asr
from promptum.cli._metrics import print_metrics
from promptum.errors import PromptumError
from promptum.foundations.flushing import TurnFlush

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID
    from rich.table import Table

    from promptum.rates import CaseRate
    from promptum.values.run_result import CaseResult, ModelStats, RunResult
    from promptum.values.tally import RunTally

_STATUS_STYLE = {"pass": "green", "fail": "red", "error": "yellow"}
_MAX_FAILURES_SHOWN = 25
"""At most `promptum.values.tally.SHOWN_FAILURES`: what a streamed run kept (not imported:
--help)."""
_TURN_EXCERPT = 200
"""Characters of a conversation's failing turn (the user's message, the reply) shown."""
_UNBOUNDED_WIDTH = 10_000
"""The width of output that is not a terminal: a log has no width to fit, and rich's own
default there (80 columns) cut model names and run ids short in CI logs."""
_PLAIN_PACE_EVERY_S = 60.0
"""Plain output prints a changed pacing line (a batch's progress) at most once a minute: a
CI log of a batch polled for a day gets a line a minute, not one per look."""


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed stream
        return False


def make_console() -> Console:
    """The rich Console every command prints to stdout with, built one way for all of them.

    Colour follows rich: on for a terminal, off otherwise, off with ``NO_COLOR``, on with
    ``FORCE_COLOR``. Width and redrawing follow whether stdout really is a terminal, which
    ``FORCE_COLOR`` does not change: a CI log with colour forced still gets plain lines
    and uncut tables. ``COLUMNS`` sets the width of output that is not a terminal.
    """
    from rich.console import Console

    terminal = _is_terminal(sys.stdout)
    width = None  # a terminal: rich asks it
    if not terminal:
        columns = os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() and int(columns) > 0 else _UNBOUNDED_WIDTH
    interactive = None  # rich's own TTY_INTERACTIVE, when set, decides
    if "TTY_INTERACTIVE" not in os.environ:
        interactive = terminal and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")
    return Console(highlight=False, width=width, force_interactive=interactive)


def counted(count: int, noun: str) -> str:
    """``1 result``, ``2 results``: a count with its noun."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def escape(text: str) -> str:
    """Escape rich markup in text that came from a suite or a model."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def _money(value: float) -> str:
    return f"${value:.4f}" if value else "$0"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} ms"


class _Pace:
    """The run's pacing line, read whenever the bar is drawn: a back-off shows while it lasts."""

    def __init__(self, line: Callable[[], str | None]) -> None:
        self.line = line

    def __rich__(self) -> str:
        line = self.line()
        return f"[dim]{escape(line)}[/]" if line else ""


class ProgressDisplay:
    """A ResultSink that shows done/total, passed/failed/errors, cost so far and an ETA."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._total = 0
        self._done = 0
        self._counts = {"pass": 0, "fail": 0, "error": 0}
        self._cost = 0.0
        self._lines = TurnFlush(console.file)
        """The plain lines' output, flushed once per turn: a CI log still shows each at once."""
        self._pace: _Pace | None = None
        self._pace_printed: str | None = None
        self._pace_next = 0.0
        """When plain output may print the pacing line again (`time.monotonic`)."""

    def follow_pacing(self, line: Callable[[], str | None]) -> None:
        """Show `line` (the endpoints' rate and back-off, `ModelClient.pacing_line`) on the bar.

        Plain output prints it instead, when it changed, at most once a minute.
        """
        if self._pace is None:
            self._pace = _Pace(line)
        else:
            self._pace.line = line  # the bar, once drawn, holds this one
        text, now = line(), time.monotonic()
        if self._console.is_interactive or not text or text == self._pace_printed:
            return
        if now >= self._pace_next:
            self._pace_printed, self._pace_next = text, now + _PLAIN_PACE_EVERY_S
            self._console.print(escape(text), highlight=False, soft_wrap=True)

    def _figures(self) -> str:
        c = self._counts
        return (
            f"[green]{c['pass']} passed[/] [red]{c['fail']} failed[/] "
            f"[yellow]{c['error']} errors[/] {_money(self._cost)}"
        )

    def start(self, run: RunResult) -> None:
        """Show the bar (terminal) or a header line (plain output)."""
        self._total = run.planned_results or 0
        models = escape(", ".join(run.models))
        running = counted(self._total, "result")
        self._console.print(f"Running {running} of {escape(run.suite)} on {models}")
        if run.resumed:
            self._console.print(f"Resuming run {run.run_id}: finished results are kept")
        # Not is_terminal: FORCE_COLOR makes a CI log a "terminal" that must not be redrawn.
        if self._console.is_interactive:
            from rich.progress import (
                BarColumn,
                Progress,
                RenderableColumn,
                TextColumn,
                TimeRemainingColumn,
            )

            pace = [RenderableColumn(self._pace)] if self._pace is not None else []
            self._progress = Progress(
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TextColumn("{task.description}"),
                TimeRemainingColumn(),
                *pace,
                console=self._console,
                transient=True,
            )
            self._task = self._progress.add_task(self._figures(), total=self._total)
            self._progress.start()

    def add(self, result: CaseResult) -> None:
        """Count one result and update the display."""
        self._done += 1
        self._counts[result.status] += 1
        if not result.completion.cached:
            self._cost += result.completion.cost_usd or 0.0
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self._done, description=self._figures())
            return
        status = result.status.upper()
        latency = "cached" if result.completion.cached else _ms(result.completion.latency_ms)
        where = f"({result.column}, {latency})"
        reason = f": {result.reasons[0]}" if result.reasons else ""
        if self._console.color_system is None:
            # Without colour the line is plain text: writing it directly is ~10x cheaper than
            # rendering markup, which was the largest cost per result of a run in a CI log.
            from rich.control import strip_control_codes

            line = f"[{self._done}/{self._total}] {status} {result.key} {where}{reason}"
            self._lines.write(strip_control_codes(line) + "\n")
            return
        style = _STATUS_STYLE[result.status]
        self._console.print(
            f"[{self._done}/{self._total}] [{style}]{status}[/] {escape(result.key)} "
            f"[dim]{escape(where)}[/]{escape(reason)}",
            highlight=False,
            soft_wrap=True,
        )

    def finish(self, run: RunResult) -> None:
        """Remove the bar; the summary follows."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        if self._console.color_system is None:
            self._lines.file.flush()  # a line of the loop's last turn may not be flushed yet
        self._lines.raise_failure()


def _ratio(passed: int, total: int) -> str:
    return f"{passed}/{total} passed" if total else "-"


def _rows(stats: ModelStats) -> list[tuple[str, str]]:
    cost = "-" if stats.spent is None else _money(stats.spent)  # no price: not $0
    if stats.cached_cost_usd:
        cost += f" (+{_money(stats.cached_cost_usd)} cached)"
    return [
        ("Pass rate", f"{stats.pass_rate:.0%} ({stats.passed}/{stats.total})"),
        ("Failed", str(stats.failed)),
        ("Errors", str(stats.errors)),
        ("Checks", _ratio(stats.checks_passed, stats.checks_total)),
        ("Field assertions", _ratio(stats.assertions_passed, stats.assertions_total)),
        ("Judge mean", "-" if stats.judge_mean is None else f"{stats.judge_mean:.2f}"),
        ("Latency p50 / p95", f"{_ms(stats.latency_p50_ms)} / {_ms(stats.latency_p95_ms)}"),
        ("Tokens in / out", f"{stats.input_tokens:,} / {stats.output_tokens:,}"),
        ("Cost", cost),
    ]


def _stats_table(run: RunResult, tally: RunTally) -> Table:
    """One column per model, one row per figure: fits a terminal with several models."""
    from rich.table import Table

    stats = list(tally.stats().values())
    table = Table(title=f"{escape(run.suite)} · run {run.run_id}", title_justify="left")
    table.add_column("")
    for model_stats in stats:
        # Folded onto more lines when narrow, never cut: `target:agent_v1` and `_v2` cut
        # short would both read `target:agent…`.
        table.add_column(escape(model_stats.column), justify="right", overflow="fold")
    per_model = [_rows(model_stats) for model_stats in stats]
    for index, (label, _) in enumerate(per_model[0] if per_model else []):
        table.add_row(label, *(rows[index][1] for rows in per_model))
    return table


def _print_pricing(console: Console, run: RunResult) -> None:
    """How the table's cost was priced: list prices of a date, the suite's own, or none."""
    from promptum.providers import pricing_line

    line = pricing_line(run.config)
    if line is not None:
        console.print(f"[dim]{escape(line)}[/]", highlight=False)


def print_summary(console: Console, run: RunResult) -> None:
    """The per-model table, `Checks: N/M passed` per model, then each failure with reasons."""
    # One count of the run's figures for everything below (a kept run's is counted anew
    # on each call of `run.tally()`).
    tally = run.tally()
    console.print()
    console.print(_stats_table(run, tally))
    _print_pricing(console, run)
    for model, checks in tally.check_stats().items():
        if checks.total:
            console.print(f"{escape(model)} · Checks: {checks.passed}/{checks.total} passed")
    print_metrics(console, tally.metric_figures(), tally.columns())
    print_asr(console, tally.asr())
    _print_variant_leads(console, run)
    _print_flaky(console, tally.flaky())
    _print_failures(console, tally)
    console.print()
    duration = f" in {run.duration_s:.1f} s" if run.duration_s is not None else ""
    console.print(f"{counted(tally.count, 'result')}{duration}: {_verdict(run, tally)}")
    if tally.cached:
        console.print(
            f"{tally.cached} of {tally.answered} answers from the cache "
            "(--no-cache to call the models)"
        )


def _print_failures(console: Console, tally: RunTally) -> None:
    """The first failures with their reasons, and how many more there are."""
    failures = tally.failures
    if failures.count:
        console.print()
        console.print(f"[bold]Failures ({failures.count})[/]")
    for result in failures.first()[:_MAX_FAILURES_SHOWN]:
        _print_failure(console, result, tally.repeated)
    if failures.count > _MAX_FAILURES_SHOWN:
        hidden = failures.count - _MAX_FAILURES_SHOWN
        console.print(f"... and {hidden} more; write a report with -o report.html to see all")


def _print_failure(console: Console, result: CaseResult, repeated: bool) -> None:
    """One failed result: its status, key and column, its reasons, its failing turn."""
    style = _STATUS_STYLE[result.status]
    where = f" [dim]{escape(result.source)}[/]" if result.source else ""
    repeat = f", repeat {result.repeat}" if repeated else ""
    console.print(
        f"[{style}]{result.status.upper()}[/] {escape(result.key)} "
        f"[dim]({escape(result.column)}{repeat})[/]{where}",
        highlight=False,
        soft_wrap=True,
    )
    for reason in result.reasons:
        console.print(f"    - {escape(reason)}", highlight=False, soft_wrap=True)
    if result.turns is None:  # a single request: no turn to show
        return
    # Imported only here: a run without a failed conversation needs nothing of reporting.
    from promptum.reporting import turn_lines

    # A conversation's failing turn, as said: what to act on without opening a report.
    for line in turn_lines(result, only_failing=True, limit=_TURN_EXCERPT):
        console.print(f"    {escape(line)}", highlight=False, soft_wrap=True)


def _verdict(run: RunResult, tally: RunTally) -> str:
    """The run in a phrase: all passed, its pass rate or nothing finished; interrupted."""
    if not tally.count:
        verdict = "nothing finished"
    elif tally.passed == tally.count and run.complete:
        verdict = "[green]all passed[/]"
    else:
        verdict = f"pass rate {tally.pass_rate:.0%}"
    if not run.complete:
        verdict += " [yellow](interrupted)[/]"
    return verdict


def _print_variant_leads(console: Console, run: RunResult) -> None:
    if not run.results:  # streamed: a run with prompt variants keeps its results to compare
        return  # and the comparison code (~20 ms to import) is not needed
    from promptum.compare import variant_leads

    for lead in variant_leads(run):
        style = "green" if lead.significant else "dim"
        console.print(f"[{style}]{escape(lead.line)}[/]", highlight=False, soft_wrap=True)
        print_lead_asr(console, lead)


def _print_flaky(console: Console, flaky: list[CaseRate]) -> None:
    if not flaky:
        return
    console.print()
    console.print(f"[bold]Flaky cases ({len(flaky)})[/]: neither always passed nor always failed")
    for case in flaky:
        console.print(
            f"[magenta]FLAKY[/] {escape(case.case_id)} [dim]({escape(case.model)})[/]: "
            f"passed {case.passed} of {case.total} repeats",
            highlight=False,
            soft_wrap=True,
        )


def write_or_exit(path: Path, text: str) -> None:
    """Write a file the user asked for, creating its folder; on failure exit 2 with one line."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        click.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
        raise SystemExit(2) from None


@contextmanager
def exit_on_user_error() -> Iterator[None]:
    """Turn a PromptumError into ``error: ...`` on stderr and exit status 2, no traceback."""
    try:
        yield
    except PromptumError as exc:
        click.echo(f"error: {exc}", err=True)
        raise SystemExit(2) from None
