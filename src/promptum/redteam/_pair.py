"""PAIR-style refinement: an attacker model rewrites the attacks a target resisted.

Pure: the caller hands in how to run cases against the target and how to ask the attacker
(Chao et al. 2023, "Jailbreaking Black Box Large Language Models in Twenty Queries").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from string import Template
from typing import Any

from promptum.foundations.literal_text import literal
from promptum.redteam._attacker_refusal import Refusals, attacker_message
from promptum.redteam._data import data
from promptum.redteam._objective import objective
from promptum.values.asr import REDTEAM_TAG


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one attack case went against the target."""

    succeeded: bool
    """Its case failed: the attack got what it wanted (on any column)."""
    answer: str
    """What the target answered (its text and tool calls)."""
    verdict: str
    """What the detectors said."""
    requests: int = 1
    """The requests its run made to the target, answered by the cache or not: one per column
    (model, prompt variant, repeat). What an adaptive attack's call budget counts."""
    cost_usd: float = 0.0
    """What the target's provider reported those requests cost (0 when unpriced)."""


class AttackerError(Exception):
    """The attacker model gave no usable attack: the generation stops, nothing is written."""


RunCases = Callable[[Sequence[Mapping[str, Any]]], Mapping[str, Outcome]]
"""Runs attack cases against the target; their outcomes by case id."""
Ask = Callable[[str, str], str]
"""Asks the attacker model (system, user) and returns its message."""


@dataclass(frozen=True, slots=True)
class Attacker:
    """What an adaptive search attacks with: the target's runs and the attacker model."""

    run: RunCases
    ask: Ask
    refusals: Refusals = field(default_factory=Refusals)
    """The attacker model's refusals, counted across every search that shares it."""


_RAW = ("{% raw %}", "{% endraw %}")
_QUOTED_OPENING = re.compile(r"\{\{ '(\{[{%#])' \}\}")


def attack_of(case: Mapping[str, Any]) -> str:
    """The attack's text as written: where the case's strategy put it, unwrapped (`literal`)."""
    if "messages" in case:
        text = str(case["messages"][-1]["content"])
    elif "context" in case and "strategy:context_document" in case["tags"]:
        text = str(case["context"][-1])
    else:
        text = str(case["query"])
    if text.startswith(_RAW[0]) and text.endswith(_RAW[1]):
        return text[len(_RAW[0]) : -len(_RAW[1])]
    return _QUOTED_OPENING.sub(lambda quoted: quoted.group(1), text)


def with_attack(case: Mapping[str, Any], text: str, strategy: str = "pair") -> dict[str, Any]:
    """A copy of `case` carrying `text` as its attack: a case of its own, of `strategy`."""
    raw = literal(text)
    refined = copy.deepcopy(dict(case))
    if "messages" in refined:
        refined["messages"][-1]["content"] = raw
    elif "context" in refined and "strategy:context_document" in refined["tags"]:
        refined["context"][-1] = raw
    else:
        refined["query"] = raw
    refined["id"] = f"{case['id']}-{strategy}"
    refined["tags"] = [
        t if not t.startswith("strategy:") else f"strategy:{strategy}" for t in case["tags"]
    ]
    return refined


def _rewritten(
    case: Mapping[str, Any],
    last: Mapping[str, Any],
    outcome: Outcome,
    ask: Ask,
    refusals: Refusals,
) -> dict[str, Any] | None:
    """The case with the attack the attacker writes from its last attempt and the answer.

    None when the attacker refused every try: a refusal is never sent as an attack.
    """
    prompts = data().attacker
    user = Template(prompts["user"]).substitute(
        objective=objective(case),
        attack=attack_of(last),
        answer=outcome.answer or "(nothing)",
        verdict=outcome.verdict,
    )
    text = attacker_message(ask, (prompts["system"], user), refusals, str(case["id"]))
    if text is None:
        return None
    if not text:
        raise AttackerError(f"the attacker model wrote no attack for {case['id']}")
    return with_attack(case, text)


def single_attacks(cases: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The attacks of one request each: the cases a rewrite may make stronger."""
    # A conversation's attacker (crescendo) already iterates, turn by turn, as it runs or as
    # it was searched (its `turns`); a control (`redteam-control`) is no attack: it keeps its
    # question as it is.
    return [
        c
        for c in cases
        if "simulate" not in c and "turns" not in c and REDTEAM_TAG in c.get("tags", ())
    ]


def resisted(
    run: RunCases, attacks: Sequence[Mapping[str, Any]]
) -> list[tuple[Mapping[str, Any], Outcome]]:
    """The attacks the target resisted, each with how it went: where adaptive attacks start."""
    outcomes = run(attacks)
    return [
        (case, outcome) for case in attacks if not (outcome := outcomes[str(case["id"])]).succeeded
    ]


def refine(
    cases: Sequence[Mapping[str, Any]], attacker: Attacker, rounds: int
) -> list[dict[str, Any]]:
    """The cases, plus a `pair` case for each attack the target resisted (controls are kept).

    Each is rewritten up to `rounds` times from the target's last answer, until it succeeds
    or the attacker keeps refusing (counted in its `refusals`; its last rewrite, if any, is
    kept); raise AttackerError if the attacker gives no attack.
    """
    run, ask, refusals = attacker.run, attacker.ask, attacker.refusals
    single = single_attacks(cases)
    outcomes = run(single)
    latest: dict[str, dict[str, Any]] = {}
    pending = [c for c in single if not outcomes[str(c["id"])].succeeded]
    for _ in range(rounds):
        asked: dict[str, dict[str, Any]] = {}
        for case in pending:
            last = latest.get(str(case["id"]), case)
            rewrite = _rewritten(case, last, outcomes[str(last["id"])], ask, refusals)
            if rewrite is not None:
                latest[str(case["id"])] = asked[str(case["id"])] = rewrite
        if not asked:
            break
        outcomes = {**outcomes, **run(list(asked.values()))}
        pending = [
            c
            for c in pending
            if str(c["id"]) in asked and not outcomes[str(asked[str(c["id"])]["id"])].succeeded
        ]
    return [*map(dict, cases), *latest.values()]
