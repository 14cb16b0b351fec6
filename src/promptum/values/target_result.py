"""`TargetResult`: what an application function may return when text alone is not enough."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TargetResult:
    """A target's answer with its structured output, tool calls, usage and cost when known."""

    text: str = ""
    output: dict[str, Any] | None = None
    """Structured output that field assertions and ``attack_target`` read."""
    tool_calls: tuple[Any, ...] = field(default_factory=tuple)
    """The tool calls the application made, in order: `promptum.ToolCall`s or mappings
    ``{"name": ..., "arguments": {...}}``; tool checks grade them."""
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
