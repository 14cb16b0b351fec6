"""What each generated case is asked to be: planned from the seed, so coverage is by design.

Every tool gets a case, every value of every variable is used in turn, passages are taken in
a seeded order, and a share of the cases are made harder (DeepEval's "evolutions"): a
constraint added to an existing case, a question over two passages, or one the documents do
not answer, whose right answer is to say so.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import cycle
from typing import Literal

from promptum.generation._brief import Brief
from promptum.generation._documents import Passage

Kind = Literal["question", "document", "two_documents", "constraint", "unanswerable"]
EVOLUTIONS: tuple[Kind, ...] = ("two_documents", "constraint", "unanswerable")
"""The kinds that make a harder case out of existing material."""
EVOLVE_EVERY = 4
"""One aim in this many is an evolution, when the material allows one."""


@dataclass(frozen=True, slots=True)
class Aim:
    """One case to ask the generator for."""

    kind: Kind
    passages: tuple[Passage, ...] = ()
    tool: str | None = None
    """A tool the case should need."""
    base: str | None = None
    """The existing query a `constraint` case makes harder."""
    values: Mapping[str, str] = field(default_factory=dict)
    """The template variables' values the case uses."""


def aims(brief: Brief, seed: int) -> Iterator[Aim]:
    """Endless aims for `brief`, the same for the same seed."""
    rng = random.Random(seed)
    passages = list(brief.passages)
    rng.shuffle(passages)
    next_passage = cycle(passages).__next__ if passages else None
    tools = cycle(brief.tool_names) if brief.tool_names else None
    values = _value_turns(brief.variables, rng)
    evolutions = cycle(_possible_evolutions(brief))
    number = 0
    while True:
        number += 1
        tool = next(tools) if tools is not None and number <= len(brief.tool_names) else None
        chosen = next(values)
        if number % EVOLVE_EVERY == 0 and (kind := next(evolutions, None)) is not None:
            yield _evolved(kind, brief, rng, chosen)
        elif next_passage is not None:
            yield Aim("document", (next_passage(),), tool, values=chosen)
        else:
            yield Aim("question", tool=tool, values=chosen)


def _possible_evolutions(brief: Brief) -> list[Kind]:
    """The evolutions `brief`'s material allows: two passages, an existing case, a passage."""
    possible: list[Kind] = []
    if len(brief.passages) >= 2:
        possible.append("two_documents")
    if brief.queries:
        possible.append("constraint")
    if brief.passages:
        possible.append("unanswerable")
    return possible


def _evolved(kind: Kind, brief: Brief, rng: random.Random, values: Mapping[str, str]) -> Aim:
    """A harder case of `kind`: its existing query or passages drawn by `rng`."""
    if kind == "constraint":
        return Aim(kind, base=rng.choice(list(brief.queries)), values=values)
    count = 2 if kind == "two_documents" else 1
    return Aim(kind, tuple(rng.sample(list(brief.passages), count)), values=values)


def _value_turns(
    variables: Mapping[str, Sequence[str]], rng: random.Random
) -> Iterator[dict[str, str]]:
    """Each variable's values in turn (a seeded order), so every value is used."""
    orders: dict[str, Iterator[str]] = {}
    for name, known in sorted(variables.items()):
        listed = sorted(set(known))
        if not listed:
            continue
        rng.shuffle(listed)
        orders[name] = cycle(listed)
    while True:
        yield {name: next(order) for name, order in orders.items()}
