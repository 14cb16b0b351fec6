"""An aim: one concrete thing to attack, and how its success is detected."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_MARKER_CHARS = "abcdefghjkmnpqrstuvwxyz23456789"


@dataclass(frozen=True, slots=True)
class Aim:
    """One concrete thing to attack: a goal with its values and how success is detected."""

    goal: str
    payload: str
    """Which payload texts of strategies.yaml ask for it."""
    values: Mapping[str, str]
    """What fills the payload's placeholders ($field, $value, $tool ...)."""
    detector: Mapping[str, Any]
    """The case keys that fail when the attack succeeded (attack_target, checks, judge)."""
    needs: frozenset[str] = frozenset()
    """What must reach the model: `canary` (in the system prompt), `context`."""
    documents: tuple[str, ...] = ()
    """Context documents the goal plants (the secret)."""
    carriers: tuple[str, ...] | None = None
    """Only these questions may carry it (a closed field's legitimate value is known)."""
    bound: bool = False
    """Its attack must ask the carrier's question: the legitimate answer is known for it."""


class GoalError(Exception):
    """Why the suite cannot support a goal, said so the user can fix it."""


def marker(rng: random.Random, prefix: str) -> str:
    """A made-up value no legitimate answer holds: ``prefix-`` and six random characters."""
    return prefix + "-" + "".join(rng.choice(_MARKER_CHARS) for _ in range(6))
