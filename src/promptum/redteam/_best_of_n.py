"""Best-of-N: seeded random augmentations of a resisted attack, tried until one succeeds.

Hughes et al. 2024, "Best-of-N Jailbreaking" (arXiv:2412.03556): the same request, its words
scrambled, its letters randomly capitalised and a few characters nudged, sampled N times; the
attack succeeds if any sample does. Pure and offline (no attacker model): the caller hands in
how to run cases against the target, and the seed decides every sample.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from promptum.redteam._adaptive_spec import BestOfNSpec
from promptum.redteam._attack_search import CallBudget
from promptum.redteam._pair import (
    Outcome,
    RunCases,
    attack_of,
    resisted,
    single_attacks,
    with_attack,
)

STRATEGY = "best_of_n"
SCRAMBLE = 0.6
"""Chance that a word longer than three letters has its middle letters shuffled."""
CAPITALISE = 0.6
"""Chance that a letter is written upper-case (else lower-case)."""
NOISE = 0.06
"""Chance that a character is moved one code point up or down (printable ASCII only)."""
# The paper's rates: sigma = 0.4, scrambling and capitals at sigma ** 0.5, noise at sigma ** 3.

_TOKEN = re.compile(r"(\s+)")
_EDGES = re.compile(r"^([\"'“”‘’«»(\[*`]*)(.*?)([.,;:!?\"'“”‘’«»)\]*`]*)$", re.DOTALL)
_QUOTES = frozenset("\"'“”‘’«»`")
_LONGEST = 20
"""Letters of a word augmented at most: a longer run is data (Base64, a token), kept as is."""


def _word(word: str, rng: random.Random) -> str:
    """One word, scrambled, capitalised and noised as the paper's three augmentations."""
    letters = list(word)
    if len(letters) > 3 and rng.random() < SCRAMBLE:
        middle = letters[1:-1]
        rng.shuffle(middle)
        letters[1:-1] = middle
    letters = [c.upper() if rng.random() < CAPITALISE else c.lower() for c in letters]
    for at, char in enumerate(letters):
        if rng.random() < NOISE:
            moved = ord(char) + rng.choice((-1, 1))
            if 32 <= moved <= 126 and ord(char) <= 126:
                letters[at] = chr(moved)
    return "".join(letters)


def augmented(text: str, rng: random.Random) -> str:
    """`text` with its plain words augmented; what the detector looks for is left intact.

    A word is augmented only when it is letters alone: the attacker's values (a marker such
    as ``hijacked-m9epxb``, a URL, a tool's name), quoted names, placeholders and encoded
    runs are kept, so an answer that obeys still holds what the goal's detector finds.
    """
    parts = _TOKEN.split(text)
    for at in range(0, len(parts), 2):
        found = _EDGES.match(parts[at])
        assert found is not None  # the pattern matches any text
        lead, core, tail = found.groups()
        quoted = _QUOTES & set(lead) or _QUOTES & set(tail)
        if core.isalpha() and len(core) <= _LONGEST and not quoted:
            parts[at] = lead + _word(core, rng) + tail
    return "".join(parts)


def sample(case: Mapping[str, Any], number: int, seed: int) -> dict[str, Any]:
    """The `number`-th augmented try of the attack `case`, drawn by `seed` alone."""
    rng = random.Random(f"{STRATEGY}:{seed}:{case['id']}:{number}")
    return with_attack(case, augmented(attack_of(case), rng), STRATEGY)


@dataclass(slots=True)
class _Trial:
    """One resisted attack's tries: the last one sent, what they cost, how they went."""

    original: Mapping[str, Any]
    budget: CallBudget
    per_try: int
    """Target calls one try makes: one per column, as the attack's own run made."""
    cost_usd: float = 0.0
    tries: list[dict[str, Any]] = field(default_factory=list)
    """Each try that ran: its text, the target's answer, the detectors' verdict."""
    succeeded: bool = False
    last: dict[str, Any] | None = None

    @classmethod
    def opened(cls, case: Mapping[str, Any], outcome: Outcome, spec: BestOfNSpec) -> _Trial:
        """The tries of the resisted attack `case`, whose own run went as `outcome`."""
        calls = spec.max_calls or spec.tries * outcome.requests
        return cls(case, CallBudget(calls), outcome.requests)

    def can_try(self, spec: BestOfNSpec) -> bool:
        """Whether another try fits the bounds: not yet succeeded, tries, calls and cost."""
        within_cost = spec.max_cost is None or self.cost_usd < spec.max_cost
        return (
            not self.succeeded
            and len(self.tries) < spec.tries
            and self.budget.allows(self.per_try)
            and within_cost
        )

    def count(self, outcome: Outcome) -> None:
        """Count a try that ran: its calls, its cost, whether it succeeded, what it sent."""
        assert self.last is not None  # a try ran
        self.budget.spend(outcome.requests)
        self.cost_usd += outcome.cost_usd
        self.succeeded = outcome.succeeded
        self.tries.append(
            {
                "attack": attack_of(self.last),
                "answer": outcome.answer,
                "verdict": outcome.verdict,
                "succeeded": outcome.succeeded,
            }
        )

    def written(self) -> dict[str, Any]:
        """The try to keep (the one that succeeded, else the last), tagged with its count."""
        assert self.last is not None  # only trials that ran are written
        return {**self.last, "tags": [*self.last["tags"], f"attempts:{len(self.tries)}"]}

    def record(self) -> dict[str, Any]:
        """What the tries were, for the searches' file beside the attacks."""
        assert self.last is not None  # only trials that ran are recorded
        return {
            "case": self.last["id"],
            "from": self.original["id"],
            "succeeded": self.succeeded,
            "calls": self.budget.used,
            "cost_usd": self.cost_usd,
            "tries": self.tries,
        }


def best_of_n(
    cases: Sequence[Mapping[str, Any]], run: RunCases, spec: BestOfNSpec, seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A `best_of_n` case for each single attack of `cases` the target resisted; their tries.

    Its tries run in turn (the n-th of every attack in one batch) until one succeeds or a
    bound ends them: `spec.tries`, `spec.max_calls` target calls, `spec.max_cost`. Each case
    is the try that succeeded, or the last one, tagged ``attempts:<tries>``; each record
    lists the tries, their answers and verdicts. The same seed samples the same tries.
    """
    trials = [
        _Trial.opened(case, outcome, spec) for case, outcome in resisted(run, single_attacks(cases))
    ]
    for number in range(1, spec.tries + 1):
        batch = [trial for trial in trials if trial.can_try(spec)]
        if not batch:
            break
        tried = [sample(trial.original, number, seed) for trial in batch]
        outcomes = run(tried)
        for trial, case in zip(batch, tried, strict=True):
            trial.last = case
            trial.count(outcomes[str(case["id"])])
    ran = [trial for trial in trials if trial.last is not None]
    return [trial.written() for trial in ran], [trial.record() for trial in ran]
