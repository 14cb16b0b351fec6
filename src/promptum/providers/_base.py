"""The one seam to every model: a `ModelRequest` in, a `Completion` out."""

from __future__ import annotations

from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from promptum.providers._keyed import Keyed, key_roles
from promptum.values.case_result import Message
from promptum.values.completion import Completion


class _Sampling:
    """The marker of a sampling parameter: a field an OpenAI-style body sends as it is."""


SAMPLED = _Sampling()


class ModelRequest(BaseModel):
    """Everything that decides a model's answer: the cache key is a hash of this.

    Each field says whether the cache key holds it (`Keyed`); one without is refused. A
    sampling parameter (`SAMPLED`) is copied by name from the case's `GenerationParams`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Annotated[str, Keyed.ALWAYS]
    """The full model id, prefix included: ``openai/gpt-4o``, ``local/smollm2``."""
    messages: Annotated[tuple[Message, ...], Keyed.ALWAYS]
    temperature: Annotated[float | None, Keyed.ALWAYS, SAMPLED] = None
    max_tokens: Annotated[int | None, Keyed.ALWAYS, SAMPLED] = None
    seed: Annotated[int | None, Keyed.ALWAYS, SAMPLED] = None
    top_p: Annotated[float | None, Keyed.WHEN_SET, SAMPLED] = None
    """Nucleus sampling: only the most likely tokens whose probabilities add up to this."""
    response_schema: Annotated[dict[str, Any] | None, Keyed.ALWAYS] = None
    """A JSON Schema the response must follow (structured output), or None for free text."""
    tools: Annotated[tuple[dict[str, Any], ...] | None, Keyed.WHEN_SET] = None
    """Tools the model may call, as OpenAI function schemas
    (``{"type": "function", "function": {"name", "description", "parameters"}}``)."""
    tool_choice: Annotated[str | dict[str, Any] | None, Keyed.WHEN_SET] = None
    """``auto``, ``none``, ``required`` or ``{"type": "function", "function": {"name": ...}}``."""
    extra: Annotated[dict[str, Any], Keyed.ALWAYS] = Field(default_factory=dict)
    """Provider-specific parameters passed through unchanged."""
    vars: Annotated[dict[str, Any], Keyed.NEVER] = Field(default_factory=dict)
    """The case's variables. Never sent to a model: a target (an application function or
    service) is called with them, besides the messages."""
    context: Annotated[tuple[str, ...] | None, Keyed.NEVER] = None
    """The case's retrieved documents, for a target; never sent to a model."""
    sample: Annotated[int, Keyed.ALWAYS] = 0
    """Which repeat (or judge sample) of the same request this is. Never sent to a model: it
    only keeps the cache from answering every repeat with the first one, so repeats are
    fresh samples while a re-run of the same repeats is still served from the cache."""
    conversation_id: Annotated[str | None, Keyed.NEVER] = None
    """The conversation this call is a turn of: stable within a run (a resumed one too),
    new in each run. Never sent to a model nor part of the cache key: a target keeping its
    own history (``history: server``) is called with it."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse, as a subclass is made, a field that does not say whether it is keyed."""
        super().__pydantic_init_subclass__(**kwargs)
        key_roles(cls)


key_roles(ModelRequest)  # refuses, on import, a field that does not say whether it is keyed

SAMPLING_PARAMETERS = tuple(
    name for name, info in ModelRequest.model_fields.items() if SAMPLED in info.metadata
)
"""The request's sampling parameters, in order: each is the case's parameter of that name."""


class Provider(Protocol):
    """Talks to one kind of model endpoint; raises typed errors, never retries, never prints.

    The client builds one per model id through its kind's row in `PROVIDER_KINDS`; an
    ``async def aclose(self)``, when present, is awaited when the client closes.
    """

    async def complete(self, request: ModelRequest) -> Completion:
        """Make one call and return its completion (text, usage, parsed output)."""
        ...
