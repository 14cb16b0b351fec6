"""The result of one model call, as every check, report and store sees it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Completion(BaseModel):
    """One model call: the response text, its figures and, if it failed, the error."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    output: dict[str, Any] | None = None
    model: str = ""
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cached: bool = False
    attempts: int = 1
    error: str | None = None
    """Why the call failed (after retries); the result is then an error, not a failure."""
    output_error: str | None = None
    """Why a response asked to follow a schema did not fit it; the call itself succeeded."""

    @property
    def ok(self) -> bool:
        """Whether the call produced a response (no error)."""
        return self.error is None
