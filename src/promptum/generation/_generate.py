"""`generate_cases`: ask the generator for each aim, keep the cases that are new and justified."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from promptum.generation._aims import Aim, aims
from promptum.generation._answers import proposed_case
from promptum.generation._brief import Brief
from promptum.generation._cases import generated_case
from promptum.generation._near import SIMILARITY, Embed, NearDuplicates
from promptum.generation._prompt import answer_schema, enum_fields, messages

Ask = Callable[[str, str, Mapping[str, Any], int], Mapping[str, Any] | None]
"""Asks the generator (system, user, the answer's JSON Schema, sample number) for the JSON
object its answer holds, None when it holds none; a failing model raises `GenerationError`.
The same arguments must give the same answer (a cached call)."""
RETRIES = 2
"""How many more times an aim is asked when its answer does not parse."""
AIMS_PER_CASE = 3
"""How many aims each wanted case may take before generation stops short."""


@dataclass(slots=True)
class Generation:
    """What was generated: the cases kept, and what was dropped and why."""

    cases: list[dict[str, Any]] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    """Dropped proposals by reason."""
    unparseable: int = 0
    """Answers that held no case (each retried up to `RETRIES` times)."""
    asked: int = 0
    """Calls to the generator."""
    aims: list[Aim] = field(default_factory=list)
    """The aim of each kept case, in order."""


def generate_cases(
    brief: Brief,
    count: int,
    seed: int,
    ask: Ask,
    embed: Embed | None = None,
    similarity: float = SIMILARITY,
) -> Generation:
    """Up to `count` new cases for `brief`; the same seed and answers give the same cases."""
    generation = Generation()
    near = NearDuplicates(embed, similarity)
    near.add_existing(brief.queries)
    for number, aim in enumerate(islice(aims(brief, seed), count * AIMS_PER_CASE)):
        if len(generation.cases) == count:
            break
        proposed = _proposal(brief, aim, number, ask, generation)
        if proposed is None:
            generation.dropped[f"no case in {RETRIES + 1} answers"] += 1
            continue
        case_id = f"generated-{len(generation.cases) + 1:03d}"
        case = generated_case(aim, proposed, case_id, enum_fields(brief))
        if isinstance(case, str):
            generation.dropped[case] += 1
            continue
        repeated, vector = near.repeated(proposed["query"])
        if repeated is not None:
            generation.dropped[f"near-duplicate of {repeated}"] += 1
            continue
        near.keep(proposed["query"], vector)
        generation.cases.append(case)
        generation.aims.append(aim)
    return generation


def _proposal(
    brief: Brief, aim: Aim, number: int, ask: Ask, generation: Generation
) -> dict[str, str] | None:
    """The case the generator proposes for `aim`, asked again when an answer does not parse."""
    system, user = messages(brief, aim)
    schema = answer_schema(aim, enum_fields(brief))
    for attempt in range(RETRIES + 1):
        generation.asked += 1
        proposed = proposed_case(ask(system, user, schema, number * (RETRIES + 1) + attempt))
        if proposed is not None:
            return proposed
        generation.unparseable += 1
    return None
