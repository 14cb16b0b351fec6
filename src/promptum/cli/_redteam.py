"""`promptum redteam generate`: write a suite's attack cases into a reviewable suite file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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
@click.option(
    "--stacks",
    type=click.IntRange(1, 1_000),
    help="Replaces the section's `stacks`: how many stacks of two strategies to sample (by the "
    "seed) and add, e.g. role_play+base64.",
)
def generate_command(
    suite: Path, output: Path, seed: int | None, per_goal: int | None, stacks: int | None
) -> None:
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
        generated = generate_suite(suite, seed, per_goal, stacks)
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
    click.echo(f"wrote {output}: {_counts(generated.cases)}")
    click.echo(_coverage(generated.cases, generated.unsupported))
    if section.attacker is None and section.strategies is None:
        click.echo(
            "  crescendo (multi-turn) skipped: an attacker model plays its user; add "
            "`attacker: <model id>` to the `redteam:` section to generate it (in a suite "
            "without `prompts:` variants)"
        )


def _counts(cases: list[dict[str, Any]]) -> str:
    """``120 attack cases and 14 controls``."""
    from promptum.values.asr import control_of

    controls = sum(control_of(case.get("tags") or ()) is not None for case in cases)
    attacks = counted(len(cases) - controls, "attack case")
    return f"{attacks} and {counted(controls, 'control')}" if controls else attacks


def _coverage(cases: list[dict[str, Any]], unsupported: Mapping[str, str]) -> str:
    """What the attacks cover: cases per goal, the strategies, and the default goals left out.

    A goal the section did not ask for is not mentioned; one of the default set the suite
    cannot support is, with why (`unsupported`).
    """
    from promptum.values.asr import attack_of

    goals: Counter[str] = Counter()
    strategies: set[str] = set()
    for case in cases:
        attack = attack_of(case.get("tags") or ())
        if attack is not None:
            goals[attack[0]] += 1
            strategies.add(attack[1])
    line = (
        f"  {counted(len(goals), 'goal')} ("
        + ", ".join(f"{goal} {count}" for goal, count in sorted(goals.items()))
        + f"), {len(strategies)} {'strategy' if len(strategies) == 1 else 'strategies'}"
    )
    for goal, why in unsupported.items():
        line += f"\n  no attacks for {goal}: {why}"
    return line
