"""`promptum import promptfoo CONFIG`: convert another tool's config into a promptum suite."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from promptum.cli._console import counted, exit_on_user_error
from promptum.cli._options import suite_output_option

if TYPE_CHECKING:
    from promptum.importers import Conversion
    from promptum.importers.traces import Reference, TraceImport


@click.group("import")
def import_command() -> None:
    """Convert another tool's test config, or production traces, into a promptum suite."""


@import_command.command("promptfoo")
@click.argument("config", type=click.Path(path_type=Path, dir_okay=False))
@suite_output_option("The suite to write (default: promptum.yaml beside CONFIG).", required=False)
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


@import_command.command("traces")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False))
@suite_output_option("The suite to write.")
@click.option("--sample", type=click.IntRange(min=1), metavar="N", help="Keep N cases, stratified.")
@click.option("--seed", type=int, default=0, show_default=True, help="The sample's seed.")
@click.option("--no-mask", is_flag=True, help="Keep secrets, e-mails and phone numbers as logged.")
@click.option(
    "--reference",
    type=click.Choice(["judge", "similar"]),
    default="judge",
    show_default=True,
    help="Grade against the production answer with the judge, or a `similar` check.",
)
@click.option(
    "--rows",
    is_flag=True,
    help="Write the cases as JSON lines beside the suite (SUITE.cases.jsonl): for whole traffic.",
)
@click.option("--force", is_flag=True, help="Replace the output if it exists.")
def traces_command(
    files: tuple[Path, ...],
    output: Path,
    sample: int | None,
    seed: int,
    no_mask: bool,
    reference: Reference,
    rows: bool,
    force: bool,
) -> None:
    """Turn production calls into cases: OTLP JSON GenAI spans or JSONL chat logs.

    Each case replays a call's messages and tools, with the answer given in production as
    its reference and the trace and span ids as tags. Identical requests are kept once;
    secrets and e-mail/phone-like text are masked unless --no-mask (docs/importing-traces.md).
    """
    from promptum.importers.traces import import_traces

    written = [output, output.with_name(f"{output.stem}.cases.jsonl")] if rows else [output]
    for path in written:
        if path.exists() and not force:
            click.echo(f"error: {path} exists; pass --force to replace it", err=True)
            raise SystemExit(2)
    with exit_on_user_error():
        output.parent.mkdir(parents=True, exist_ok=True)
        imported = import_traces(list(files), output, sample, seed, not no_mask, reference, rows)
    _traces_summary(imported)


def _traces_summary(imported: TraceImport) -> None:
    click.echo(
        f"wrote {imported.suite}: {counted(imported.cases, 'case')} from "
        f"{counted(imported.calls, 'call')} read ({counted(imported.duplicates, 'duplicate')} "
        f"of an earlier request, {counted(imported.other_spans, 'other span')} passed over)"
    )
    if imported.rows is not None:
        click.echo(f"wrote {imported.rows}: the cases, one a line, read by the suite")
    for reason, count in imported.skipped.most_common():
        click.echo(f"left out {count}: {reason} (first at {imported.first_skipped[reason]})")
    if imported.sampled:
        click.echo("sample by model and tool called (kept / distinct):")
        for (model, tool), (distinct, kept) in imported.strata.items():
            click.echo(f"  {model or '(no model)'}, {tool or 'no tool'}: {kept} / {distinct}")
    masked = ", ".join(f"{count} {kind}" for kind, count in sorted(imported.masked.items()))
    click.echo(f"masked: {masked or 'nothing found'}" if imported.masking else "masked: off")
    click.echo(f"next: promptum validate {imported.suite} && promptum run {imported.suite}")
