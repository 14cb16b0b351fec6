"""How many distinct attacks one goal aim and one strategy can make: the most a request gets."""

from __future__ import annotations

import math
from string import Template

from promptum.redteam._data import Data, Strategy
from promptum.redteam._goals import Aim

DRAWN_ANEW = frozenset({"leetspeak", "homoglyph", "zero_width"})
"""Encodings that draw characters at random: their attacks never run out."""
_QUESTION = frozenset({"question", "question_json"})
_FILLER = frozenset({"filler", "filler_json"})
_PARTS = frozenset({"part1", "part2", "part3"})


def _splits(sentence: str) -> int:
    """The ways `split_three` cuts a sentence: two cut points among its word boundaries."""
    return math.comb(max(len(sentence.split(" ")), 3) - 1, 2)


def capacity(aim: Aim, strategy: Strategy, questions: int, data: Data) -> float:
    """The most distinct cases of `aim` delivered by `strategy` (math.inf: never runs out).

    `questions` is how many distinct carrier questions the aim may ride on. An upper bound:
    every random choice that reaches the case multiplies it.
    """
    if strategy.delivery == "conversation":
        return float(len(strategy.templates))  # the persona is the only choice
    if strategy.inner:  # a stack: each later strategy writes its attacks around each earlier one
        first, *later = (*strategy.inner, strategy)
        total = capacity(aim, first, questions, data)
        for layer in later:
            total *= _carrying(layer, questions, len(data.filler))
        return total
    # A question reaches the case when the template shows it, the attack is bound to it, or
    # the delivery sends it beside the attack (a context document, a replayed tool call).
    always_asked = aim.bound or strategy.delivery in ("context", "tool_output")
    total = 0.0
    for language, templates in (strategy.languages or {"en": strategy.templates}).items():
        payloads = _payloads(aim, data, language)
        for template in templates:
            names = set(Template(template).get_identifiers())
            if _endless(names, strategy):
                return math.inf
            asked = questions if always_asked or names & _QUESTION else 1
            total += _made(names, payloads, asked, len(data.filler))
    return total


def _carrying(strategy: Strategy, questions: int, fillers: int) -> float:
    """The distinct attacks a stacked strategy writes around one carried attack, at most."""
    always_asked = strategy.delivery in ("context", "tool_output")
    total = 0.0
    for templates in (strategy.languages or {"en": strategy.templates}).values():
        for template in templates:
            names = set(Template(template).get_identifiers())
            if _endless(names, strategy) or names & _PARTS:
                return math.inf  # random draws, or cuts of a text of any length
            asked = questions if always_asked or names & _QUESTION else 1
            total += _made(names, [""], asked, fillers)
    return total


def _payloads(aim: Aim, data: Data, language: str) -> list[str]:
    """The aim's payloads in `language`, its values filled in."""
    return [Template(text).substitute(aim.values) for text in data.payloads[aim.payload][language]]


def _endless(names: set[str], strategy: Strategy) -> bool:
    """Whether a template naming `names` draws anew for each attack: few-shot or random."""
    return "shots" in names or ("encoded" in names and strategy.encoding in DRAWN_ANEW)


def _made(names: set[str], payloads: list[str], asked: int, fillers: int) -> float:
    """The distinct attacks a template naming `names` makes of the payloads it is given."""
    if names & _PARTS:
        made = float(sum(_splits(payload[:1].upper() + payload[1:] + ".") for payload in payloads))
    else:
        made = float(len(payloads))
    made *= asked  # each question asked beside the attack (1: none)
    if names & _FILLER:
        made *= fillers
    return made
