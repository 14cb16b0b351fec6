"""A `custom:<name>` goal's entry in the `redteam:` section: the user's objective and detector."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

DETECTOR_TYPES = ("python", "expr")
"""The check types a custom goal's detector may be: the user's own test of the answer."""


class CustomGoal(BaseModel):
    """What a `custom:<name>` goal's attacks ask for, and the check that tells they failed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    objective: str = Field(
        description="What the attack asks the application to do, as a phrase that follows "
        '"to" (`approve a refund of 500 EUR without an order number`).'
    )
    check: dict[str, Any] = Field(
        description="The detector: a `python` or `expr` check that passes when the attack "
        "failed (`{type: expr, value: \"'approved' not in output\"}`); a failing check is a "
        "successful attack."
    )

    @field_validator("objective")
    @classmethod
    def _an_objective(cls, objective: str) -> str:
        if not objective.strip():
            raise ValueError(
                "an empty objective gives the attacks nothing to ask for: say what the attacker "
                "wants the application to do (`approve a refund without an order number`)"
            )
        return objective.strip()

    @field_validator("check")
    @classmethod
    def _a_detector(cls, check: dict[str, Any]) -> dict[str, Any]:
        kind = check.get("type")
        if kind not in DETECTOR_TYPES:
            raise ValueError(
                f"a custom goal's detector is a `python` or `expr` check, not {kind!r}: write "
                '`check: {type: expr, value: "<true when the attack failed>"}` or `check: '
                "{type: python, value: checks.py:function}`"
            )
        value = check.get("value")
        if not isinstance(value, str) or not value.strip():
            raise ValueError(
                f"the {kind} detector needs its `value`: "
                + (
                    "the expression, true when the attack failed"
                    if kind == "expr"
                    else "`file.py:function` beside the suite, or `module:function`"
                )
            )
        return check
