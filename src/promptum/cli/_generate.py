"""`promptum generate cases`: a generator model writes new cases into a reviewable suite file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from promptum.cli._console import counted, exit_on_user_error, write_or_exit
from promptum.cli._options import BESIDE_SOURCE, refuse_overwriting, suite_output_option

if TYPE_CHECKING:
    from promptum.generation import Brief, Embed, Generation

GENERATOR_MAX_TOKENS = 400
"""Room for one case as JSON, with a passage's quote."""


_EMBEDDED = " (the embedded model: neither `generator:` nor --model was given)"


def _defaulted(
    names: tuple[str, ...], kind: click.ParamType[Any], default: float, text: str
) -> Callable[[Any], Any]:
    """An option with a default that its help shows."""
    return click.option(*names, type=kind, default=default, show_default=True, help=text)


@click.group("generate")
def generate_command() -> None:
    """Generate cases, or checks, for review: `generate cases SUITE -o FILE`, `generate checks`."""


@generate_command.command("cases")
@click.argument("suite", type=click.Path(path_type=Path, dir_okay=False))
@suite_output_option(BESIDE_SOURCE)
@_defaulted(
    ("-n", "--count"),
    click.IntRange(1, 10_000),
    20,
    "How many cases to write at most (dropped ones are not replaced past a budget).",
)
@click.option(
    "--from",
    "documents",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    multiple=True,
    help="A text document to write cases from (repeatable): each case cites its lines.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Another seed, other cases.")
@click.option("--model", help="The generator model; replaces the suite's `generator:`.")
@_defaulted(
    ("--temperature",), click.FloatRange(0, 2), 0.7, "The generator's sampling temperature."
)
@_defaulted(
    ("--similarity",),
    click.FloatRange(0, 1),
    0.9,
    "Drop a case whose query is this similar to another (cosine, embedded MiniLM).",
)
def cases_command(
    suite: Path,
    output: Path,
    count: int,
    documents: tuple[Path, ...],
    seed: int,
    model: str | None,
    temperature: float,
    similarity: float,
) -> None:
    """Write COUNT new cases for SUITE, from its application and DOCUMENTS, to a suite file.

    Every answer is cached: the same seed, model and inputs write the same file. Nothing is
    written when the generator fails.
    """
    from promptum.cli._asking import Asking, asking
    from promptum.generation import GenerationError, generate_cases, kinds, read_documents
    from promptum.providers import DEFAULT_MODEL
    from promptum.suites import described_suite, load_suite

    refuse_overwriting(output, suite, "cases")
    with exit_on_user_error():
        described = described_suite(suite, read_documents(documents))
        generator = model or described.generator or DEFAULT_MODEL
        embed, dedup = embedder()
        settings = Asking(
            generator,
            described.endpoints,
            GenerationError,
            "generator",
            GENERATOR_MAX_TOKENS,
            temperature,
            seed,
        )
        with asking(settings) as asker:
            generation = generate_cases(described.brief, count, seed, asker.json, embed, similarity)
        if not generation.cases:
            _nothing_kept(generation)
        command = _command(suite, count, seed, generator, documents)
        write_or_exit(output, described.text(generation.cases, _header(command)))
        load_suite(output)
    click.echo(f"wrote {output}: {counted(len(generation.cases), 'case')} ({kinds(generation)})")
    click.echo(f"  generator: {generator}" + ("" if model or described.generator else _EMBEDDED))
    _print_report(generation, described.brief, dedup)
    if embed is not None:
        _print_diversity([str(case["query"]) for case in generation.cases], embed)


def _nothing_kept(generation: Generation) -> None:
    """Exit 2 with why no case was kept."""
    why = ", ".join(f"{reason} {n}" for reason, n in generation.dropped.most_common())
    click.echo(f"error: no case kept ({why or 'nothing proposed'}); nothing was written", err=True)
    raise SystemExit(2)


def embedder() -> tuple[Embed | None, str]:
    """The embedded MiniLM for near-duplicates, or None (exact repeats only) and why."""
    from promptum.embeddings import EmbeddingError, local_embedder

    try:
        embedder = local_embedder()
    except EmbeddingError as exc:
        return None, f"exact repeats only ({exc})"
    return embedder.embed, "near-duplicates by the embedded MiniLM"


def _command(suite: Path, count: int, seed: int, model: str, documents: tuple[Path, ...]) -> str:
    """The command that makes the file again, for its header."""
    command = f"promptum generate cases {suite.name} -n {count} --seed {seed} --model {model}"
    return command + "".join(f" --from {document}" for document in documents)


def _header(command: str) -> str:
    return (
        f"# Cases generated by `{command}`.\n"
        "# An ordinary suite: review each case (keep, edit its expectation, or drop it) before\n"
        "# you move it into your suite. Tags say how each was made (generated:<kind>) and from\n"
        "# which document lines (source:<file>:<lines>). docs/generating.md\n"
    )


def _print_diversity(queries: list[str], embed: Embed) -> None:
    """How alike the kept queries are (1.0: all the same), by the embedded MiniLM."""
    from promptum.embeddings import mean_nearest_similarity

    similarity = mean_nearest_similarity([queries], embed)
    if similarity is not None:
        click.echo(f"  diversity: mean nearest-neighbour similarity {similarity:.2f} (MiniLM)")


def _print_report(generation: Generation, brief: Brief, dedup: str) -> None:
    """What was kept, dropped and why, and what the kept cases cover."""
    from promptum.generation import coverage

    dropped = sum(generation.dropped.values())
    reasons = ", ".join(f"{reason} {n}" for reason, n in generation.dropped.most_common())
    click.echo(f"  dropped {dropped}" + (f": {reasons}" if reasons else "") + f" ({dedup})")
    click.echo(
        f"  {counted(generation.asked, 'generator call')}, "
        f"{counted(generation.unparseable, 'answer')} without a case (asked again)"
    )
    for line in coverage(brief, generation):
        click.echo(f"  covered {line}")


@generate_command.command("checks")
@click.argument("suite", type=click.Path(path_type=Path, dir_okay=False))
@suite_output_option("Write the diff to this file instead of printing it.", required=False)
def checks_command(suite: Path, output: Path | None) -> None:
    """Propose checks for SUITE's judge-only cases, as a diff to review and apply.

    A case with no `checks`, `expected` or `attack_target` gets the checks its
    `expected_behavior` states outright: a quoted phrase, a character limit, JSON, a value of
    an enumerated field. SUITE itself is never changed: apply the diff with `git apply`.
    """
    from promptum.suites import proposed_for_suite

    with exit_on_user_error():
        proposed = proposed_for_suite(suite)
    if not proposed.diff:
        click.echo(f"{suite}: no check to propose", err=True)
        return
    if output is None:
        click.echo(proposed.diff, nl=False)
    else:
        write_or_exit(output, proposed.diff)
    checks = counted(proposed.checks, "proposed check")
    click.echo(
        f"{checks} (or field assertions) for {counted(proposed.cases, 'case')}; review the "
        "diff, then `git apply` it",
        err=True,
    )
