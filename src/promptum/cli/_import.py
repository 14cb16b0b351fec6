"""`promptum import promptfoo CONFIG`: convert another tool's config into a promptum suite."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from promptum.cli._console import counted, exit_on_user_error

if TYPE_CHECKING:
    from promptum.importers import Conversion


@click.group("import")
def import_command() -> None:
    """Convert another tool's test config into a promptum suite."""


@import_command.command("promptfoo")
@click.argument("config", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The suite to write (default: promptum.yaml beside CONFIG).",
)
@click.option("--force", is_flag=True, help="Replace the output if it exists.")
def promptfoo_command(config: Path, output: Path | None, force: bool) -> None:
    """Convert a promptfoo config (promptfooconfig.yaml) into a suite that validates.

    Comments in the suite name the config's lines; the summary counts the assertions
    converted exactly, approximately and not at all, and lists what was not converted
    with its line and why. Nothing of the config is run while converting.
    """
    from promptum.importers import import_promptfoo

    target = output if output is not None else config.parent / "promptum.yaml"
    if target.exists() and not force:
        click.echo(f"error: {target} exists; pass --force to replace it", err=True)
        raise SystemExit(2)
    if not config.is_file():
        click.echo(f"error: {config}: no such file", err=True)
        raise SystemExit(2)
    with exit_on_user_error():
        target.parent.mkdir(parents=True, exist_ok=True)
        conversion = import_promptfoo(config, target)
    _summary(conversion, config)


def _summary(conversion: Conversion, config: Path) -> None:
    from promptum.importers import Fidelity

    outcome = conversion.outcome
    answered = conversion.target or ", ".join(conversion.models) or "local/smollm2"
    click.echo(
        f"wrote {conversion.suite} from {config}: {counted(conversion.cases, 'case')}, "
        f"{counted(conversion.variants, 'prompt')}, answered by {answered}"
    )
    if conversion.adapter is not None:
        click.echo(f"wrote {conversion.adapter}: the config's Python, which the suite imports")
    counts = outcome.counts
    click.echo(
        f"assertions: {counts[Fidelity.EXACT]} converted exactly, "
        f"{counts[Fidelity.APPROXIMATE]} approximately (marked `approximately:` in the suite), "
        f"{counts[Fidelity.NONE]} not converted"
    )
    if outcome.approximate:
        click.echo("approximately:")
        for note in outcome.approximate:
            click.echo(f"  {note}")
    if outcome.skipped:
        click.echo("not converted:")
        for note in outcome.skipped:
            click.echo(f"  {note}")
    click.echo(f"next: promptum validate {conversion.suite} && promptum run {conversion.suite}")
