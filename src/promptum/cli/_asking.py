"""Asking a model one (system, user) request: one client on one loop, seeded, cached.

What `promptum generate cases` asks its generator and `promptum redteam generate` its
attacker (rewrites, searches, intents): every answer cached as a run's are, so a re-run with
the same seed and model calls no model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptum.providers import EndpointConfig, ModelClient
    from promptum.redteam import Refusals

SEED_STRIDE = 10_007
"""Each call's seed is the run's seed times this plus the call's number: every call samples
afresh (a retry is not the same answer again), and two seeds share no call."""


@dataclass(frozen=True, slots=True)
class Asking:
    """Whom to ask and how: the model, where it is served, and each request's settings."""

    model: str
    endpoints: Mapping[str, EndpointConfig]
    failure: type[Exception]
    """Raised, naming the model, when a call fails."""
    role: str
    """What the model is to the command (`generator`, `attacker`), for the failure's words."""
    max_tokens: int
    temperature: float = 0.0
    seed: int | None = None
    """With a seed, each call's is ``seed * SEED_STRIDE + sample``; None: the provider's own."""
    refusals: Refusals | None = None
    """With it, an answer that is a refusal is asked again with `RETRY_NOTE` (at most
    `refusals.retries` times) and counted; the last answer is returned whatever it is."""


@dataclass(frozen=True, slots=True)
class Asker:
    """Asks one model through one client on one event loop (`asking`)."""

    settings: Asking
    client: ModelClient
    loop: asyncio.AbstractEventLoop

    def text(
        self, system: str, user: str, sample: int = 0, schema: Mapping[str, Any] | None = None
    ) -> str:
        """The model's answer to (system, user); a refusal asked again when `refusals` is set."""
        from promptum.redteam import RETRY_NOTE, refused

        refusals = self.settings.refusals
        retries = 0 if refusals is None else refusals.retries
        answer = ""
        for attempt in range(retries + 1):
            answer = self._once(system, user + RETRY_NOTE * attempt, sample, schema)
            if refusals is None or not refused(answer):
                break
            refusals.refused += 1
        return answer

    def json(
        self, system: str, user: str, schema: Mapping[str, Any], sample: int
    ) -> Mapping[str, Any] | None:
        """The JSON object the answer holds, held to `schema` where the provider can; or None."""
        from promptum.providers import extract_json_object

        return extract_json_object(self.text(system, user, sample, schema))  # small models wrap it

    def _once(self, system: str, user: str, sample: int, schema: Mapping[str, Any] | None) -> str:
        from promptum.providers import ModelRequest
        from promptum.values.case_result import Message

        settings = self.settings
        request = ModelRequest(
            model=settings.model,
            messages=(Message(role="system", content=system), Message(role="user", content=user)),
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            seed=None if settings.seed is None else settings.seed * SEED_STRIDE + sample,
            response_schema=None if schema is None else dict(schema),
        )
        completion = self.loop.run_until_complete(self.client.complete(request))
        if completion.error is not None:
            raise settings.failure(
                f"the {settings.role} model {settings.model} failed: {completion.error}"
            )
        return completion.text


@contextmanager
def asking(settings: Asking) -> Iterator[Asker]:
    """An `Asker` for the block's length: its client closed, its loop too, at the end."""
    from promptum.providers import ClientOptions, ModelClient

    loop = asyncio.new_event_loop()
    client = ModelClient(ClientOptions(endpoints=dict(settings.endpoints)))
    try:
        yield Asker(settings, client, loop)
    finally:
        loop.run_until_complete(client.aclose())
        loop.close()
