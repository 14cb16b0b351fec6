"""`promptum report`: render reports again from saved results, without calling a model."""

from __future__ import annotations

from pathlib import Path

import click

from promptum.cli._console import exit_on_user_error
from promptum.cli._options import FactOption, format_help, output_help
from promptum.cli._runs import check_formats, db_option, open_store, write_reports


def _is_file(argument: Path) -> bool:
    """Whether RESULTS names a results file rather than a stored run's id."""
    return (
        argument.exists()
        or argument.suffix.lower() in (".json", ".jsonl")
        or (len(argument.parts) > 1)
    )


@click.command("report")
@click.argument("results", metavar="RESULTS|RUN_ID", type=click.Path(path_type=Path))
@click.option(
    "-o", "--output", "outputs", cls=FactOption, multiple=True, required=True,
    type=click.Path(path_type=Path), help_text=output_help,
)  # fmt: skip
@click.option("-f", "--format", "fmt", cls=FactOption, metavar="FORMAT", help_text=format_help)
@db_option
def report_command(
    results: Path, outputs: tuple[Path, ...], fmt: str | None, db: Path | None
) -> None:
    """Render saved results as reports: a .json/.jsonl from `promptum run -o`, or a stored run.

    A RUN_ID is a run of the store (`promptum runs list`): its id, a unique prefix,
    `latest` or `latest~N`. Every -o is written; one that cannot be written stops no other.
    Exit codes: 0 written, 2 unreadable results or an unknown format (nothing is written),
    or a file that could not be written.
    """
    from promptum.reporting import load_run

    with exit_on_user_error():
        check_formats(outputs, fmt)
        reviews = None
        if _is_file(results):
            run = load_run(results)
        else:
            store = open_store(db)
            run = store.load(str(results))
            reviews = store.reviews_by_result(run.run_id)  # shown beside the grades
    write_reports(run, outputs, fmt, reviews)
