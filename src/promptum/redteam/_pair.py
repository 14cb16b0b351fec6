"""PAIR-style refinement: an attacker model rewrites the attacks a target resisted.

Pure: the caller hands in how to run cases against the target and how to ask the attacker
(Chao et al. 2023, "Jailbreaking Black Box Large Language Models in Twenty Queries").
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from string import Template
from typing import Any

from promptum.redteam._data import data
from promptum.redteam._generate import literal
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


class AttackerError(Exception):
    """The attacker model gave no usable attack: the generation stops, nothing is written."""


RunCases = Callable[[Sequence[Mapping[str, Any]]], Mapping[str, Outcome]]
"""Runs attack cases against the target; their outcomes by case id."""
Ask = Callable[[str, str], str]
"""Asks the attacker model (system, user) and returns its message."""


def attack_of(case: Mapping[str, Any]) -> str:
    """The attack's text: where the case's strategy put it."""
    if "messages" in case:
        return str(case["messages"][-1]["content"])
    if "context" in case and "strategy:context_document" in case["tags"]:
        return str(case["context"][-1])
    return str(case["query"])


def with_attack(case: Mapping[str, Any], text: str) -> dict[str, Any]:
    """A copy of `case` carrying `text` as its attack: a `pair` case of its own."""
    raw = literal(text)
    refined = copy.deepcopy(dict(case))
    if "messages" in refined:
        refined["messages"][-1]["content"] = raw
    elif "context" in refined and "strategy:context_document" in refined["tags"]:
        refined["context"][-1] = raw
    else:
        refined["query"] = raw
    refined["id"] = f"{case['id']}-pair"
    refined["tags"] = [
        t if not t.startswith("strategy:") else "strategy:pair" for t in case["tags"]
    ]
    return refined


def _rewritten(
    case: Mapping[str, Any], last: Mapping[str, Any], outcome: Outcome, ask: Ask
) -> dict[str, Any]:
    """The case with the attack the attacker writes from its last attempt and the answer."""
    prompts = data().attacker
    user = Template(prompts["user"]).substitute(
        objective=objective(case),
        attack=attack_of(last),
        answer=outcome.answer or "(nothing)",
        verdict=outcome.verdict,
    )
    text = ask(prompts["system"], user).strip()
    if not text:
        raise AttackerError(f"the attacker model wrote no attack for {case['id']}")
    return with_attack(case, text)


def _single_attacks(cases: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The attacks of one request each: the cases a rewrite may make stronger."""
    # A conversation's attacker (crescendo) already iterates, turn by turn, as it runs; a
    # control (`redteam-control`) is no attack: it keeps its question as it is.
    return [c for c in cases if "simulate" not in c and REDTEAM_TAG in c.get("tags", ())]


def refine(
    cases: Sequence[Mapping[str, Any]], run: RunCases, ask: Ask, rounds: int
) -> list[dict[str, Any]]:
    """The cases, plus a `pair` case for each attack the target resisted (controls are kept).

    Each is rewritten up to `rounds` times from the target's last answer, until it succeeds;
    raise AttackerError if the attacker gives no attack.
    """
    single = _single_attacks(cases)
    outcomes = run(single)
    latest: dict[str, dict[str, Any]] = {}
    pending = [c for c in single if not outcomes[str(c["id"])].succeeded]
    for _ in range(rounds):
        if not pending:
            break
        asked = []
        for case in pending:
            last = latest.get(str(case["id"]), case)
            latest[str(case["id"])] = _rewritten(case, last, outcomes[str(last["id"])], ask)
            asked.append(latest[str(case["id"])])
        outcomes = {**outcomes, **run(asked)}
        pending = [c for c in pending if not outcomes[str(latest[str(c["id"])]["id"])].succeeded]
    return [*map(dict, cases), *latest.values()]
