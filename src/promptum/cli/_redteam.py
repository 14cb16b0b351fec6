"""`promptum redteam generate`: write a suite's attack cases into a reviewable suite file."""

from __future__ import annotations

from pathlib import Path

import click

from promptum.cli._console import counted, exit_on_user_error, write_or_exit


@click.group("redteam")
def redteam_command() -> None:
    """Red teaming: generate attack cases from a suite's `redteam:` section."""


@redteam_command.command("generate")
@click.argument("suite", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    required=True,
    help="The suite file to write (beside SUITE, so its relative paths still hold).",
)
@click.option("--seed", type=int, help="Replaces the section's `seed`: another set of attacks.")
@click.option(
    "--per-goal",
    type=click.IntRange(1, 100_000),
    help="Replaces the section's `per_goal`: how many cases each goal gets.",
)
def generate_command(suite: Path, output: Path, seed: int | None, per_goal: int | None) -> None:
    """Write SUITE's generated attacks, with its models, tools and prompts, to a suite file.

    The same seed writes the same file, byte for byte. The file is checked by loading it,
    as `promptum validate` does.
    """
    from promptum.cli._pair import asker, runner
    from promptum.redteam import AttackerError, refine
    from promptum.suites import generate_suite, load_suite

    if output.resolve() == suite.resolve():
        click.echo(
            f"error: {output}: this is SUITE itself; write the attacks to another file", err=True
        )
        raise SystemExit(2)
    with exit_on_user_error():
        generated = generate_suite(suite, seed, per_goal)
        section = generated.section
        if section.attacker is not None:
            run, ask = runner(suite, generated), asker(section.attacker, generated.endpoints)
            try:
                generated.cases = refine(generated.cases, run, ask, section.rounds or 3)
            except AttackerError as exc:
                click.echo(f"error: {exc}; nothing was written", err=True)
                raise SystemExit(2) from None
        write_or_exit(output, generated.text())
        load_suite(output)
    click.echo(f"wrote {output}: {counted(len(generated.cases), 'attack case')}")
