"""`promptum redteam generate`: write a suite's attack cases into a reviewable suite file."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from promptum.cli._console import counted, exit_on_user_error, write_or_exit
from promptum.cli._options import BESIDE_SOURCE, refuse_overwriting, suite_output_option

if TYPE_CHECKING:
    from promptum.providers import EndpointConfig
    from promptum.redteam import Attacker, IntentWriter, RedteamSpec, Refusals
    from promptum.suites import Generated

ATTACKER_MAX_TOKENS = 256
"""Room for one attack message (a PAIR rewrite, a TAP branch, a conversation's turn)."""
INTENT_TOKENS = 90
"""Room for one attack intent (at most 300 characters) in the attacker's JSON answer."""
INTENT_TEMPERATURE = 0.9
"""Intents sample afresh each call (seeded, so the same seed writes the same ones)."""


@click.group("redteam")
def redteam_command() -> None:
    """Red teaming: generate attack cases from a suite's `redteam:` section."""


@redteam_command.command("generate")
@click.argument("suite", type=click.Path(path_type=Path, dir_okay=False))
@suite_output_option(BESIDE_SOURCE)
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
    from promptum.redteam import AttackerError, Refusals
    from promptum.suites import generate_suite, load_suite

    refuse_overwriting(output, suite, "attacks")
    refusals = Refusals()
    with exit_on_user_error(), ExitStack() as closing:
        writers = _IntentWriters(seed, refusals, closing)
        searches: dict[str, list[dict[str, Any]]] = {}
        try:
            generated = generate_suite(suite, seed, per_goal, stacks, writers)
            section = generated.section
            _adapted(suite, generated, (section.seed if seed is None else seed, refusals), searches)
        except AttackerError as exc:
            click.echo(f"error: {exc}; nothing was written", err=True)
            raise SystemExit(2) from None
        write_or_exit(output, generated.text())
        if searches:
            write_or_exit(_searched_path(output), json.dumps(searches, indent=1) + "\n")
        load_suite(output)
    click.echo(f"wrote {output}: {_counts(generated.cases)}")
    if searches:
        click.echo(f"wrote {_searched_path(output)}: {_searched_line(searches)}")
    click.echo(_coverage(generated.cases, generated.unsupported))
    if (diversity := _diversity(generated.cases)) is not None:
        click.echo(f"  {diversity}")
    if writers.made is not None:
        click.echo(
            f"  {counted(writers.made.calls, 'attacker call')} for attack intents, per goal:"
        )
        for line in writers.made.lines():
            click.echo(f"    {line}")
    if (refused := refusals.summary()) is not None:
        click.echo(f"  {refused}")
    if section.attacker is None and section.strategies is None:
        click.echo(
            "  crescendo (multi-turn) skipped: an attacker model plays its user; add "
            "`attacker: <model id>` to the `redteam:` section to generate it (in a suite "
            "without `prompts:` variants)"
        )


@dataclass(slots=True)
class _IntentWriters:
    """Makes the writer of a section's attack intents: the attacker asked, seeded and cached.

    Its asker stays open until `closing` closes; the writer made is kept for the report.
    """

    seed: int | None
    """The `--seed` given, else the section's: each call's seed is drawn from it."""
    refusals: Refusals
    """Where the attacker's refusals are counted (an answer that is one is asked again)."""
    closing: ExitStack
    made: IntentWriter | None = None

    def __call__(
        self, section: RedteamSpec, endpoints: Mapping[str, EndpointConfig]
    ) -> IntentWriter:
        from promptum.cli._asking import Asking, asking
        from promptum.redteam import AttackerError, IntentWriter

        assert section.attacker is not None  # `generate_suite` asks only with an attacker
        settings = Asking(
            section.attacker,
            endpoints,
            AttackerError,
            "attacker",
            INTENT_TOKENS * (section.intents or 1) + INTENT_TOKENS,
            INTENT_TEMPERATURE,
            section.seed if self.seed is None else self.seed,
            self.refusals,
        )
        asker = self.closing.enter_context(asking(settings))
        self.made = IntentWriter(asker.json, _fresh())
        return self.made


def _fresh() -> Callable[[str, str], bool]:
    """Whether a goal's intent is new: no near-duplicate (embedded MiniLM) of one it kept."""
    from promptum.cli._generate import embedder
    from promptum.generation import NearDuplicates

    embed, _ = embedder()
    kept: dict[str, NearDuplicates] = {}

    def fresh(goal: str, text: str) -> bool:
        near = kept.setdefault(goal, NearDuplicates(embed))
        repeated, vector = near.repeated(text)
        if repeated is None:
            near.keep(text, vector)
        return repeated is None

    return fresh


def _adapted(
    suite: Path,
    generated: Generated,
    seeded: tuple[int, Refusals],
    searches: dict[str, list[dict[str, Any]]],
) -> None:
    """Add the adaptive attacks the section asks for (PAIR or TAP, GOAT, Best-of-N) to `generated`.

    A crescendo search (`crescendo:`) rewrites the crescendo conversations; the trees and
    turns of the searches go to `searches`. Each starts from the static attacks the target
    resisted; the attacker model's refusals are counted in `seeded`'s `Refusals`.
    """
    from promptum.cli._asking import Asking, asking
    from promptum.cli._pair import runner
    from promptum.redteam import Attacker, AttackerError, best_of_n, goat

    section, static = generated.section, generated.cases
    if section.attacker is None and section.best_of_n is None:
        return
    (seed, refusals), run = seeded, runner(suite, generated)
    added: list[dict[str, Any]] = []
    if section.attacker is not None:
        settings = Asking(
            section.attacker, generated.endpoints, AttackerError, "attacker", ATTACKER_MAX_TOKENS
        )
        with asking(settings) as asker:
            attacker = Attacker(run, asker.text, refusals)
            static, added = _searched(generated, static, attacker, seed, searches)
            if section.goat is not None:
                talks, searches["goat"] = goat(static, attacker, section.goat)
                added += talks
    if section.best_of_n is not None:
        tried, searches["best_of_n"] = best_of_n(static, run, section.best_of_n, seed)
        added += tried
    generated.cases = [*static, *added]


def _searched(
    generated: Generated,
    static: list[dict[str, Any]],
    attacker: Attacker,
    seed: int,
    searches: dict[str, list[dict[str, Any]]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`static` with its crescendo conversations searched, and the attacks TAP (else PAIR) adds.

    Each search's turns or tree is recorded in `searches`.
    """
    from promptum.redteam import crescendo, refine, tap

    section = generated.section
    if section.crescendo is not None:
        static, talks = crescendo(static, attacker, section.crescendo)
        searches["crescendo"] = [talk.record() for talk in talks]
    if section.tap is None:
        return static, refine(static, attacker, section.rounds or 3)[len(static) :]
    grown, trees = tap(static, attacker, section.tap, seed)
    searches["tap"] = [tree.record() for tree in trees]
    return static, grown[len(static) :]


def _searched_path(output: Path) -> Path:
    """Where the searches' trees and turns go: `attacks.search.json` beside `attacks.yaml`."""
    return output.with_name(f"{output.stem}.search.json")


def _searched_line(searches: Mapping[str, list[dict[str, Any]]]) -> str:
    """``2 TAP trees (1 succeeded, 31 calls), 1 crescendo conversation (0 succeeded, 9 calls)``."""
    parts = []
    for key, name in (
        ("tap", "TAP tree"),
        ("crescendo", "crescendo conversation"),
        ("goat", "GOAT conversation"),
        ("best_of_n", "Best-of-N attack"),
    ):
        if key in searches:
            records = searches[key]
            won = sum(record["succeeded"] for record in records)
            calls = sum(record["calls"] for record in records)
            parts.append(f"{counted(len(records), name)} ({won} succeeded, {calls} calls)")
    return ", ".join(parts)


def _diversity(cases: list[dict[str, Any]]) -> str | None:
    """How alike a goal's attacks are, by the embedded MiniLM; None without it or a pair."""
    from promptum.embeddings import EmbeddingError, local_embedder, mean_nearest_similarity
    from promptum.values.asr import attack_of

    by_goal: dict[str, list[str]] = {}
    for case in cases:
        attack = attack_of(case.get("tags") or ())
        if attack is not None and isinstance(case.get("query"), str):
            by_goal.setdefault(attack[0], []).append(case["query"])
    try:
        similarity = mean_nearest_similarity(by_goal.values(), local_embedder().embed)
    except EmbeddingError:
        return None
    if similarity is None:
        return None
    return f"diversity: mean nearest-neighbour similarity within a goal {similarity:.2f} (MiniLM)"


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
