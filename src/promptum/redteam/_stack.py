"""Stacked strategies: static strategies composed in order, each carrying the previous attack.

``[role_play, base64]`` writes the role-play attack, then hides that whole text in Base64
with one of base64's templates: the attack a filter that decodes Base64 but does not
recognise role play, or a model that refuses either alone, may let through. A stack is
named by its strategies joined with ``+`` (``role_play+base64``), in its cases' ids, their
``strategy:`` tags and so in the attack success rates.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from promptum.redteam._data import Strategy

JOIN = "+"
_DELIVERED_AS = {
    "context": "a document of the case's context",
    "tool_output": "a tool's result in a replayed conversation",
}


def stacked(layers: Sequence[Strategy]) -> Strategy:
    """The layers as one strategy: the last one's delivery, the others applied before it."""
    *inner, last = layers
    if not inner:
        return last
    name = JOIN.join(layer.name for layer in layers)
    return dataclasses.replace(last, name=name, inner=tuple(inner))


def stack_problem(layers: Sequence[Strategy]) -> str | None:
    """Why the strategies cannot be stacked in this order, or None when they can."""
    for position, layer in enumerate(layers):
        if layer.delivery == "conversation":
            return (
                f"strategy {layer.name!r} is a conversation its attacker model plays turn by "
                "turn, not a text another strategy can carry: a stack composes static "
                "strategies only"
            )
        if position < len(layers) - 1 and layer.delivery != "user":
            return (
                f"strategy {layer.name!r} delivers its attack as "
                f"{_DELIVERED_AS.get(layer.delivery, layer.delivery)}, not as a message the "
                "next strategy can carry: put it last in the stack"
            )
    return None


def sampled_stacks(
    strategies: Sequence[Strategy], count: int, seed: int, taken: set[str]
) -> list[Strategy]:
    """Up to `count` stacks of two distinct strategies, drawn by `seed`; none named in `taken`."""
    pairs = [
        (first, second)
        for first in strategies
        for second in strategies
        if first.name != second.name
        and stack_problem((first, second)) is None
        and JOIN.join((first.name, second.name)) not in taken
    ]
    # A generator of its own: sampling stacks leaves the cases' own draws as they were.
    drawn = random.Random(f"stacks:{seed}").sample(pairs, min(count, len(pairs)))
    return [stacked(pair) for pair in drawn]
