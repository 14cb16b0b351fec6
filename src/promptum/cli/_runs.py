"""`promptum runs list|show|delete|export`: the run history kept in the run store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from promptum.cli._console import escape, exit_on_user_error, make_console
from promptum.cli._options import FactOption, format_help, json_option, output_help

if TYPE_CHECKING:
    from promptum.store import RunStore
    from promptum.values.reviews import ReviewMap
    from promptum.values.run_result import RunResult

F = TypeVar("F", bound=Callable[..., Any])


def db_option(function: F) -> F:
    """The ``--db`` option every history command takes."""
    return click.option(
        "--db",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar="PROMPTUM_DB",
        help="The run store (default: $PROMPTUM_DB, else .promptum/runs.sqlite).",
    )(function)


def open_store(db: Path | None) -> RunStore:
    """The run store at `db` (or the default); an error when it does not exist yet."""
    from promptum.store import RunStore, StoreError, default_store_path

    path = db if db is not None else default_store_path()
    if not path.exists():
        raise StoreError(
            f"{path}: no run store yet; `promptum run` records every run there "
            "(or pass --db / set PROMPTUM_DB to the store you mean)"
        )
    return RunStore(path)


@click.group("runs")
def runs_command() -> None:
    """The run history: list, show, delete and export recorded runs.

    A RUN is a run id, a unique prefix of one, `latest` or `latest~N` (N runs before).
    """


@runs_command.command("list")
@db_option
@click.option("-n", "--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--suite", help="Only runs whose suite name contains this.")
@click.option("--model", help="Only runs of this model.")
@json_option("the runs")
def list_command(
    db: Path | None, limit: int, suite: str | None, model: str | None, as_json: bool
) -> None:
    """List recorded runs, newest first."""
    from promptum.cli import _machine

    with exit_on_user_error():
        runs = open_store(db).list_runs(limit=limit, suite=suite, model=model)
    if as_json:
        _machine.print_json({"runs": [_machine.run_summary(run) for run in runs]})
        return
    from rich.table import Table

    console = make_console()
    if not runs:
        console.print("no runs recorded" + (" matching the filters" if suite or model else ""))
        return
    table = Table()
    # The id is what the other commands take: other columns wrap before it is ever cut.
    table.add_column("Run", no_wrap=True)
    for header in ("Started (UTC)", "Suite", "Models", "Results", "Pass rate", "State", "Commit"):
        # Folded, never cut: similar suite or model names cut short would all read alike.
        table.add_column(header, overflow="fold")
    for run in runs:
        table.add_row(
            run.run_id,
            run.started_at.strftime("%Y-%m-%d %H:%M"),
            escape(run.suite),
            escape(", ".join(run.models)),
            str(run.total),
            f"{run.pass_rate:.0%}",
            run.state,
            run.revision,
        )
    console.print(table)


@runs_command.command("show")
@db_option
@click.argument("run_ref", metavar="RUN")
@json_option("the run's summary, failures, flaky cases and gate")
def show_command(db: Path | None, run_ref: str, as_json: bool) -> None:
    """Show a run's summary, failures and flaky cases."""
    from promptum.cli import _machine
    from promptum.cli._console import print_summary
    from promptum.compare import flaky_cases

    with exit_on_user_error():
        store = open_store(db)
        summary = store.summary(run_ref)
        run = store.load(summary.run_id)
        reviews = store.reviews_by_result(summary.run_id)
    if as_json:
        _machine.print_json(_machine.run_details(summary, run, reviews))
        return
    console = make_console()
    commit = f" · commit {summary.revision}" if summary.revision else ""
    console.print(
        f"run {run.run_id} · {summary.state} · promptum {summary.promptum_version}{commit}"
    )
    print_summary(console, run)
    flaky = flaky_cases(run)
    if flaky:
        console.print(f"[bold]Flaky cases ({len(flaky)})[/]: passed on some repeats only")
        for rate in flaky:
            console.print(
                f"  {escape(rate.case_id)} [dim]({escape(rate.model)})[/]: "
                f"passed {rate.passed} of {rate.total}"
            )


@runs_command.command("delete")
@db_option
@click.argument("run_refs", metavar="RUN...", nargs=-1, required=True)
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
def delete_command(db: Path | None, run_refs: tuple[str, ...], yes: bool) -> None:
    """Delete runs and their results from the store."""
    with exit_on_user_error():
        store = open_store(db)
        run_ids = [store.resolve(ref) for ref in run_refs]
        if not yes:
            click.confirm(f"Delete {len(run_ids)} run(s): {', '.join(run_ids)}?", abort=True)
        for run_id in run_ids:
            store.delete(run_id)
            click.echo(f"deleted {run_id}")


@runs_command.command("export")
@db_option
@click.argument("run_ref", metavar="RUN")
@click.option(
    "-o", "--output", "outputs", cls=FactOption, multiple=True, required=True,
    type=click.Path(dir_okay=False, path_type=Path), help_text=output_help,
)  # fmt: skip
@click.option("-f", "--format", "fmt", cls=FactOption, metavar="FORMAT", help_text=format_help)
def export_command(
    db: Path | None, run_ref: str, outputs: tuple[Path, ...], fmt: str | None
) -> None:
    """Write a recorded run as JSON (the `promptum run -o FILE.json` format) or any report.

    Every -o is written; one that cannot be written stops no other. Exit codes: 0 written,
    2 an unknown run or format (nothing is written), or a file that could not be written.
    """
    with exit_on_user_error():
        check_formats(outputs, fmt)
        store = open_store(db)
        run = store.load(run_ref)
        reviews = store.reviews_by_result(run.run_id)  # shown beside the grades
    write_reports(run, outputs, fmt, reviews)


def check_formats(outputs: Sequence[Path], fmt: str | None) -> None:
    """Raise ConfigError for an -o whose format is unknown: nothing is written half-done."""
    from promptum.reporting import format_of

    for path in outputs:
        format_of(path, fmt)


def write_reports(
    run: RunResult, outputs: Sequence[Path], fmt: str | None, reviews: ReviewMap | None
) -> None:
    """Write every -o, one that cannot be written stopping no other; exit 2 if one failed."""
    from promptum.errors import PromptumError
    from promptum.reporting import write_report

    unwritten = 0
    for path in outputs:
        try:
            write_report(run, path, fmt, reviews=reviews)
        except PromptumError as exc:
            unwritten += 1
            click.echo(f"error: {exc}", err=True)
        else:
            click.echo(f"wrote {path}")
    if unwritten:
        raise SystemExit(2)
