"""What bounds every adaptive attack alike: what the target's provider reports it cost."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CostBound(BaseModel):
    """An adaptive attack's bound on the cost the target's provider reports for its calls."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_cost: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="USD: no new attempt once one attack's attempts cost this much, as the "
        "target's provider reports it (one attempt, or one batch of attempts, may go over).",
    )
