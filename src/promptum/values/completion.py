"""The result of one model call, as every check, report and store sees it."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)


class ToolCall(BaseModel):
    """One tool call a model (or target) made: the tool's name and its parsed arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    """The provider's id of the call, which a tool result message refers to."""
    error: str | None = None
    """Why the arguments are not usable: not a JSON object, or not fitting the tool's
    schema. Tool checks fail with it."""

    def describe(self) -> str:
        """``name(arg=value, ...)`` for reports."""
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.name}({arguments})"


_SAID_WHEN_SET = ("cache_read_tokens", "cache_write_tokens")
"""Fields a dump leaves out when None: only some providers report them."""


class Completion(BaseModel):
    """One model call: the response text, its figures and, if it failed, the error."""

    # Built on first use: loading a suite (`promptum validate`) never makes one.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    text: str = ""
    output: dict[str, Any] | None = None
    model: str = ""
    latency_ms: float | None = None
    input_tokens: int | None = None
    """Every input token of the call, those of the provider's prompt cache included."""
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    """Of `input_tokens`, those read from the provider's prompt cache (billed lower); None:
    the provider said none. Not promptum's response cache, which `cached` is about."""
    cache_write_tokens: int | None = None
    """Of `input_tokens`, those written to the provider's prompt cache (Anthropic bills them
    higher); None: the provider said none."""
    cost_usd: float | None = None
    cached: bool = False
    attempts: int = 1
    error: str | None = None
    """Why the call failed (after retries); the result is then an error, not a failure."""
    output_error: str | None = None
    """Why a response asked to follow a schema did not fit it; the call itself succeeded."""
    tool_calls: tuple[ToolCall, ...] = ()
    """The tools the model called, in order (empty when it called none)."""

    @model_serializer(mode="wrap")
    def _without_no_tool_calls(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A completion without tool calls or prompt-cache counts dumps as it always has
        # (cache, store, exports).
        data: dict[str, Any] = handler(self)
        if not data.get("tool_calls"):
            data.pop("tool_calls", None)
        for unsaid in _SAID_WHEN_SET:
            if data.get(unsaid) is None:
                data.pop(unsaid, None)
        return data

    @property
    def ok(self) -> bool:
        """Whether the call produced a response (no error)."""
        return self.error is None
