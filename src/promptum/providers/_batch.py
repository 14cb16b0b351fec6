"""A run's calls answered through the providers' batch APIs: submitted once, polled, read back.

`BatchPhase.answer` takes the run's requests, leaves out those the response cache answers,
submits the rest as one batch per model (or as many as the API's size limits need), tells
its caller each batch's id as soon as it exists (the resume journal keeps it), polls with
back-off until every batch has ended, and hands each answer to the client
(`ModelClient.batched`), priced at the batch discount. The run's ordinary calls are then
served from there: grading, reports and the store do not know the difference. Calls that
need an answer first (the judge's, a conversation's later turns) go in later rounds:
`answered` reads the rounds before. A batch submitted by an interrupted run is polled
again on resume, never submitted again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from promptum.errors import PromptumError
from promptum.providers._base import ModelRequest
from promptum.providers._batch_apis import BatchApi, BatchState, batch_api
from promptum.providers._batch_choice import batch_problem
from promptum.providers._cache import cache_key
from promptum.providers._client import ModelClient
from promptum.providers._errors import ProviderError
from promptum.values.completion import Completion

POLL_FIRST_S = 1.0
POLL_FACTOR = 1.5
POLL_MAX_S = 60.0
"""A batch is looked at after 1 s, then 1.5 times later each time, at most once a minute:
a batch of a few calls is read back within seconds, one of a day costs ~1,500 looks."""
POLL_ERRORS = 5
"""Failed looks in a row (the provider down) after which a batch's calls run live."""


class BatchRecord(BaseModel):
    """A submitted batch, as the resume journal keeps it: polled again, never submitted again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    id: str
    requests: int
    """How many calls it holds."""
    round: int = 1
    """Which of the run's successive rounds it belongs to (1: the answers; 2: their judging)."""

    def as_json(self) -> dict[str, Any]:
        """The record as JSON."""
        return self.model_dump()

    @classmethod
    def from_json(cls, data: object) -> BatchRecord | None:
        """The record `as_json` wrote; None for anything else (a line cut short)."""
        try:
            return cls.model_validate(data)
        except ValidationError:
            return None


@dataclass(slots=True)
class _Submitted:
    """A batch being waited for: its API, record and the requests it holds by custom id."""

    api: BatchApi
    record: BatchRecord
    requests: dict[str, ModelRequest]
    state: BatchState | None = None


@dataclass(slots=True)
class BatchPhase:
    """The batch phase of one run on one client: what it submitted, waits for and served."""

    client: ModelClient
    record: Callable[[BatchRecord], None]
    """Called with each batch as soon as it is submitted (the journal keeps it)."""
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    """Set to stop waiting: submitted batches stay on the provider's side, for a resume."""
    polled: Callable[[], None] = lambda: None
    """Called after each look at a batch: its progress line may have changed."""
    warnings: list[str] = field(default_factory=list)
    """What did not go as asked: each batch whose calls ran live instead, and why."""
    _waiting: list[_Submitted] = field(default_factory=list)
    _asked: set[str] = field(default_factory=set)
    """The cache keys of every call a round asked for: none is asked in a batch twice."""

    @property
    def line(self) -> str | None:
        """Where the batches stand, for the progress line; None when none is waited for."""
        waited = [s for s in self._waiting if s.state is None or not s.state.ended]
        if not waited:
            return None
        states = [
            f"{s.record.id}: {s.state.progress if s.state else 'submitted'} ({s.record.model})"
            for s in waited
        ]
        return "batch " + "; ".join(states)

    def batchable(self, model: str) -> bool:
        """Whether `model`'s calls go in batches too (a judge's model): never raises."""
        try:
            route = self.client._route(model)
        except PromptumError:  # not callable as configured: its calls will say why, live
            return False
        own = route.config.batch if route.config is not None else None
        if own is not None:
            return own
        return self.client.options.batch and batch_problem(self.client, model) is None

    def _key(self, request: ModelRequest) -> str:
        """The call's cache key: its custom id in a batch."""
        return cache_key(request, self.client._route(request.model).identity)

    def asked(self, request: ModelRequest) -> bool:
        """Whether a round asked for this call already (answered or not: it is not asked again)."""
        return self._key(request) in self._asked

    def answered(self, request: ModelRequest) -> Completion | None:
        """The answer a call of an earlier round got, as the client will serve it; None if none."""
        client = self.client
        try:
            key = self._key(request)
        except PromptumError:  # not callable as configured: the run's call will say why
            return None
        found = client.batched.get(key)
        if found is None and client._cache is not None:
            found = client._cache.get(key)
        return None if found is None else client._checked(found, request)

    async def answer(
        self, requests: Iterable[ModelRequest], earlier: Sequence[BatchRecord] = (), round: int = 1
    ) -> int:
        """Answer `requests` through batches of `round`: those of `earlier` first, then new ones.

        Returns how many of them were neither answered by the cache nor asked before.
        """
        pending = self._pending(requests)
        count = sum(map(len, pending.values()))  # before the batches read take theirs out
        for model, wanted in pending.items():
            api = self._api(model)
            if api is not None:
                mine = [r for r in earlier if r.model == model and r.round == round]
                self._waiting += [_Submitted(api, r, wanted) for r in mine]
        await self._wait()
        for model, wanted in pending.items():
            api = self._api(model)
            if api is not None and wanted and not self.stopping.is_set():
                await self._submit(model, api, wanted, round)
        await self._wait()
        return count

    def _pending(self, requests: Iterable[ModelRequest]) -> dict[str, dict[str, ModelRequest]]:
        """The requests not asked before that the cache does not answer, by model, by cache key."""
        client = self.client
        pending: dict[str, dict[str, ModelRequest]] = {}
        for request in requests:
            key = self._key(request)
            cached = client._cache is not None and client._cache.get(key) is not None
            if cached or key in self._asked:
                continue
            self._asked.add(key)
            pending.setdefault(request.model, {})[key] = request
        return pending

    def _api(self, model: str) -> BatchApi | None:
        """The batch API serving `model`, built once with its provider."""
        provider, _, _ = self.client._provider(self.client._route(model))
        return batch_api(provider)

    async def _submit(
        self, model: str, api: BatchApi, wanted: dict[str, ModelRequest], round: int
    ) -> None:
        """Submit what no earlier batch holds, in as few batches as the API's limits allow."""
        for chunk in _chunks(api, wanted):
            try:
                ident = await api.submit([entry for _, entry in chunk])
            except Exception as exc:  # whatever it is, the calls can still be made live
                self.warnings.append(
                    f"a batch of {len(chunk)} calls of {model} could not be submitted "
                    f"({_said(exc)}); they ran live, at the ordinary price"
                )
                continue
            record = BatchRecord(model=model, id=ident, requests=len(chunk), round=round)
            self.record(record)  # before anything else can interrupt: never submitted twice
            held = {custom_id: wanted[custom_id] for custom_id, _ in chunk}
            self._waiting.append(_Submitted(api, record, held))

    async def _wait(self) -> None:
        """Poll every batch waited for until it ends (or the run stops), then read it."""
        # Kept in `_waiting` while polled: `line` shows them.
        await asyncio.gather(*(self._follow(batch) for batch in self._waiting))
        self._waiting = []

    async def _follow(self, batch: _Submitted) -> None:
        """Poll one batch with back-off; once ended, serve its answers."""
        delay, errors = POLL_FIRST_S, 0
        while not self.stopping.is_set():
            try:
                batch.state = await batch.api.state(batch.record.id)
                errors = 0
                self.polled()
            except Exception as exc:  # the provider down for a while: looked at again later
                errors += 1
                if errors >= POLL_ERRORS:
                    self._gave_up(batch, f"it could not be looked at: {_said(exc)}")
                    return
            if batch.state is not None and batch.state.ended:
                await self._read(batch, batch.state)
                return
            await _sleep_unless(self.stopping, delay)
            delay = min(delay * POLL_FACTOR, POLL_MAX_S)

    async def _read(self, batch: _Submitted, state: BatchState) -> None:
        """Hand each answer of an ended batch to the client, priced at the batch discount."""
        price = self.client._price(batch.record.model)
        try:
            async for custom_id, completion in batch.api.answers(
                batch.record.id, state, batch.requests
            ):
                batch.requests.pop(custom_id, None)  # answered or not, it was submitted
                if completion is not None:
                    cost = price.cost_of(completion, batch=True) if price else None
                    self.client.batched[custom_id] = completion.model_copy(
                        update={"cost_usd": cost, "attempts": 1, "cached": False}
                    )
        except Exception as exc:  # the answers not read are asked live
            self._gave_up(batch, f"its answers could not be read: {_said(exc)}")

    def _gave_up(self, batch: _Submitted, why: str) -> None:
        self.warnings.append(
            f"batch {batch.record.id} of {batch.record.model}: {why}; its calls not yet "
            "answered ran live, at the ordinary price"
        )


def _said(error: Exception) -> str:
    """An error in words: a provider's as it says it, any other with its type."""
    return str(error) if isinstance(error, ProviderError) else f"{type(error).__name__}: {error}"


def _chunks(
    api: BatchApi, wanted: dict[str, ModelRequest]
) -> list[list[tuple[str, dict[str, Any]]]]:
    """The requests as the API's entries, split where a batch would hold too many or too much."""
    chunks: list[list[tuple[str, dict[str, Any]]]] = [[]]
    size = 0
    for custom_id, request in wanted.items():
        entry = api.entry(custom_id, request)
        grows = len(json.dumps(entry)) + 1
        if chunks[-1] and (len(chunks[-1]) >= api.max_requests or size + grows > api.max_bytes):
            chunks.append([])
            size = 0
        chunks[-1].append((custom_id, entry))
        size += grows
    return [chunk for chunk in chunks if chunk]


async def _sleep_unless(stopping: asyncio.Event, seconds: float) -> None:
    """Wait `seconds`, or less if `stopping` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stopping.wait(), timeout=seconds)
