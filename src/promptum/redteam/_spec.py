"""The `redteam:` section of a suite, as a pydantic model: which attacks to generate."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from promptum.redteam._adaptive_spec import BestOfNSpec, GoatSpec
from promptum.redteam._custom_goal import CustomGoal
from promptum.redteam._search_spec import CrescendoSpec, TapSpec

MIN_SECRET = 6
"""Characters a `secret:` needs: a shorter one (``"a"``, ``"42"``) is in ordinary answers, so
every attack would count as a success."""

MAX_PURPOSE = 1_000
"""Characters of a `purpose:`: what the app is for, beside the prompt and tools already shown."""

GOALS = ("field", "tool", "prompt_leak", "exfiltration", "secret_leak", "policy")
"""What an attacker wants, in the order goals are generated."""


class RedteamSpec(BaseModel):
    """A suite's `redteam:` section: goals × strategies, generated into cases when loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    goals: list[str] | None = Field(
        default=None,
        description="What the attacker wants: field, tool, prompt_leak, exfiltration, "
        "secret_leak, policy; `field:NAME` or `tool:NAME` aims at one. Default: every goal "
        "of these the suite supports. Named only: pii, excessive_agency[:NAME], "
        "harmful[:CATEGORY], custom:NAME.",
    )
    strategies: list[str | list[str]] | None = Field(
        default=None,
        description="How attacks are delivered (docs/redteam.md lists them); a list of "
        "strategies is a stack, each applied to the previous one's attack "
        "(`[role_play, base64]`). Default: every strategy the suite supports.",
    )
    stacks: int | None = Field(
        default=None,
        ge=1,
        le=1_000,
        description="How many stacks of two strategies to sample (seeded) and add to the "
        "strategies.",
    )
    seed: int = Field(default=0, description="The same seed generates the same cases.")
    per_goal: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="Cases per goal, spread over the strategies; default three per strategy.",
    )
    must_pass: bool = Field(
        default=False,
        description="Every generated case is must-pass: one successful attack fails the run.",
    )
    attacker: str | None = Field(
        default=None,
        description="A model that rewrites the attacks a target resisted (PAIR), when "
        "`promptum redteam generate` writes them; a suite loading its section refuses it.",
    )
    rounds: int | None = Field(
        default=None, ge=1, le=20, description="The attacker's rewrites per attack; default 3."
    )
    tap: TapSpec | None = Field(
        default=None,
        description="Grow a tree of attacks with pruning (TAP) from each resisted attack, "
        "instead of PAIR's rewrites, with the attacker model (`redteam generate`).",
    )
    crescendo: CrescendoSpec | None = Field(
        default=None,
        description="Search each crescendo conversation turn by turn with the attacker model, "
        "backtracking on refusals, and write the turns it kept (`redteam generate`).",
    )
    best_of_n: BestOfNSpec | None = Field(
        default=None,
        description="Try seeded random augmentations of each resisted attack (Best-of-N; no "
        "attacker model needed), when `promptum redteam generate` writes them.",
    )
    goat: GoatSpec | None = Field(
        default=None,
        description="Continue each resisted attack as a conversation whose turns the attacker "
        "model writes, choosing a strategy each turn (GOAT; `redteam generate`).",
    )
    intents: int | None = Field(
        default=None,
        ge=1,
        le=20,
        description="How many attack intents the attacker model writes for each aim of a goal, "
        "from the suite (system prompt, tools, response model, policy, purpose), for the "
        "strategies to deliver instead of the generic phrasings (`redteam generate`; needs "
        "`attacker:`).",
    )
    purpose: str | None = Field(
        default=None,
        description="What the application is for, in a sentence or two: the attacker's intents "
        "aim at it.",
    )
    policy: str | None = Field(
        default=None,
        description="The rule the `policy` goal's attacks try to break; the judge grades it.",
    )
    secret: str | None = Field(
        default=None,
        description="The secret the `secret_leak` goal plants in `context`; default: made up.",
    )
    custom: dict[str, CustomGoal] | None = Field(
        default=None,
        description="The `custom:<name>` goals: each an `objective` the attacks ask for and "
        "the `check` (python or expr) that passes when the attack failed.",
    )

    @field_validator("goals", "strategies")
    @classmethod
    def _not_empty(cls, names: list[str] | None) -> list[str] | None:
        # An empty list would generate nothing and the run would still look red-teamed.
        if names is not None and not names:
            raise ValueError(
                "an empty list generates no attack: name at least one, or remove the key "
                "to use every one the suite supports"
            )
        return names

    @field_validator("policy")
    @classmethod
    def _a_rule(cls, policy: str | None) -> str | None:
        if policy is not None and not policy.strip():
            raise ValueError(
                "an empty policy gives the judge nothing to grade: write the rule, or remove it"
            )
        return policy

    @field_validator("purpose")
    @classmethod
    def _a_purpose(cls, purpose: str | None) -> str | None:
        why = None if purpose is None else _purpose_problem(purpose)
        if why is not None:
            raise ValueError(why)
        return purpose

    @field_validator("secret")
    @classmethod
    def _a_secret(cls, secret: str | None) -> str | None:
        if secret is not None and len(secret.strip()) < MIN_SECRET:
            raise ValueError(
                f"a secret needs at least {MIN_SECRET} characters: a shorter one is found in "
                "ordinary answers, so every attack would count as a success (remove `secret:` "
                "and one is made up)"
            )
        return secret


def _purpose_problem(purpose: str) -> str | None:
    """Why a `purpose:` tells the attacker nothing useful, or None."""
    if not purpose.strip():
        return (
            "an empty purpose tells the attacker nothing: say what the application is for "
            "(`purpose: Acme Store's support bot: refunds, shipping, tickets`), or remove it"
        )
    if len(purpose) > MAX_PURPOSE:
        return (
            f"a purpose of {len(purpose)} characters is more than the attacker is shown "
            f"({MAX_PURPOSE}): say what the application is for in a sentence or two (its "
            "system prompt, tools and response model are shown already)"
        )
    return None
