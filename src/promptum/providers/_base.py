"""The one seam to every model: a `ModelRequest` in, a `Completion` out."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from promptum.case_result import Message
from promptum.completion import Completion


class ModelRequest(BaseModel):
    """Everything that decides a model's answer: the cache key is a hash of this."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """The full model id, prefix included: ``openai/gpt-4o``, ``local/smollm2``."""
    messages: tuple[Message, ...]
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    response_schema: dict[str, Any] | None = None
    """A JSON Schema the response must follow (structured output), or None for free text."""
    tools: tuple[dict[str, Any], ...] | None = None
    """Tools the model may call, as OpenAI function schemas
    (``{"type": "function", "function": {"name", "description", "parameters"}}``)."""
    tool_choice: str | dict[str, Any] | None = None
    """``auto``, ``none``, ``required`` or ``{"type": "function", "function": {"name": ...}}``."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Provider-specific parameters passed through unchanged."""
    vars: dict[str, Any] = Field(default_factory=dict)
    """The case's variables. Never sent to a model: a target (an application function or
    service) is called with them, besides the messages."""
    context: tuple[str, ...] | None = None
    """The case's retrieved documents, for a target; never sent to a model."""
    sample: int = 0
    """Which repeat (or judge sample) of the same request this is. Never sent to a model: it
    only keeps the cache from answering every repeat with the first one, so repeats are
    fresh samples while a re-run of the same repeats is still served from the cache."""
    conversation_id: str | None = None
    """The conversation this call is a turn of: stable within a run (a resumed one too),
    new in each run. Never sent to a model nor part of the cache key: a target keeping its
    own history (``history: server``) is called with it."""


class Provider(Protocol):
    """Talks to one kind of model endpoint; raises typed errors, never retries, never prints.

    The client builds one per model id through its kind's row in `PROVIDER_KINDS`; an
    ``async def aclose(self)``, when present, is awaited when the client closes.
    """

    async def complete(self, request: ModelRequest) -> Completion:
        """Make one call and return its completion (text, usage, parsed output)."""
        ...
