"""The bounds of Best-of-N and GOAT, run by `promptum redteam generate`: `best_of_n:`, `goat:`."""

from __future__ import annotations

from pydantic import Field

from promptum.redteam._cost_bound import CostBound


class BestOfNSpec(CostBound):
    """`redteam.best_of_n`: seeded random augmentations of each attack the target resisted."""

    tries: int = Field(default=10, ge=1, le=1_000, description="Tries per attack at most: the N.")
    max_calls: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="The most target calls one attack's tries make (one a try per model and "
        "prompt variant); default: as many as `tries` needs.",
    )


class GoatSpec(CostBound):
    """`redteam.goat`: an attacker model continuing each resisted attack as a conversation."""

    turns: int = Field(
        default=5, ge=2, le=20, description="User turns at most, the first included."
    )
    max_calls: int = Field(
        default=30,
        ge=1,
        le=10_000,
        description="The most calls one conversation makes: the attacker's (one a turn, and "
        "its retries after a refusal) and the target's (each turn per model and variant).",
    )


def goat_problem(attacker: str | None, variants: bool) -> str | None:
    """Why a section's `goat:` cannot run: no attacker model, or prompt variants; else None."""
    if attacker is None:
        return (
            "GOAT's turns are written by an attacker model: add `attacker: <model id>` "
            "(local/smollm2 runs offline), or remove `goat:`"
        )
    if variants:
        return (
            "a GOAT conversation cannot run on the suite's `prompts:` variants (a variant "
            "writes the one request a case sends): remove `goat:`, or the variants"
        )
    return None
