"""The bounds of the adaptive searches `promptum redteam generate` runs: `tap:`, `crescendo:`."""

from __future__ import annotations

from pydantic import Field

from promptum.redteam._cost_bound import CostBound


class TapSpec(CostBound):
    """`redteam.tap`: a tree of attacks with pruning grown from each attack the target resisted."""

    branches: int = Field(
        default=3, ge=1, le=10, description="Variations the attacker writes of each kept attempt."
    )
    width: int = Field(
        default=3, ge=1, le=20, description="Attempts kept at each depth: the best by progress."
    )
    depth: int = Field(default=3, ge=1, le=10, description="Generations of variations at most.")
    max_calls: int = Field(
        default=40,
        ge=1,
        le=10_000,
        description="The most calls one attack's tree makes, its root's run included: the "
        "attacker's (variations, off-topic checks, progress scores) and the target's (one an "
        "attempt per model and prompt variant).",
    )


class CrescendoSpec(CostBound):
    """`redteam.crescendo`: each crescendo conversation searched turn by turn, backtracking."""

    turns: int = Field(default=5, ge=1, le=20, description="User turns kept at most.")
    backtracks: int = Field(
        default=3,
        ge=0,
        le=20,
        description="Refused turns dropped from the conversation and tried again, at most.",
    )
    max_calls: int = Field(
        default=30,
        ge=1,
        le=10_000,
        description="The most calls one conversation's search makes: the attacker's (turns, "
        "progress scores) and the target's (one a turn sent, per model and prompt variant).",
    )


def search_problems(
    tap: TapSpec | None,
    crescendo: CrescendoSpec | None,
    attacker: str | None,
    strategies: list[str | list[str]] | None,
) -> list[tuple[tuple[str], str]]:
    """Why a section's `tap:` or `crescendo:` cannot run, each at its key; empty if both can."""
    problems: list[tuple[tuple[str], str]] = []
    for key, given in (("tap", tap), ("crescendo", crescendo)):
        if given is not None and attacker is None:
            problems.append(
                (
                    (key,),
                    f"`{key}:` bounds a search the attacker model makes: add `attacker: <model "
                    f"id>` (local/smollm2 runs offline), or remove `{key}:`",
                )
            )
    if crescendo is not None and strategies is not None and "crescendo" not in strategies:
        problems.append(
            (
                ("crescendo",),
                "`crescendo:` searches the conversations of the `crescendo` strategy, which "
                "`strategies:` leaves out: add `crescendo` to it, or remove `crescendo:`",
            )
        )
    return problems
