"""`ModelClient`: the one object the runner calls; cache, retries, timeouts, cost, schemas.

Providers make exactly one call and raise typed errors; everything around that call lives
here, once, for every provider: the cache lookup, the concurrency limit per endpoint, the
per-call timeout, retries with backoff within the run's budget, the cost from the price
table and the structured-output check. `complete` never raises for a failed call.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path

from promptum.errors import ProviderUnavailableError
from promptum.foundations.redaction import declare_secret_variables
from promptum.providers._base import ModelRequest, Provider
from promptum.providers._cache import ResponseCache, cache_key
from promptum.providers._errors import (
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
)
from promptum.providers._kinds import provider_kind
from promptum.providers._options import ClientOptions, Price
from promptum.providers._pacing import Admission, EndpointPacer
from promptum.providers._pricing import price_for
from promptum.providers._retry import RetryBudget, backoff_delay
from promptum.providers._route import Route, build_provider
from promptum.providers._routing import resolve
from promptum.providers._structured import SchemaMismatch, parse_structured, schema_problem
from promptum.providers._tools import checked_calls
from promptum.values.completion import Completion
from promptum.values.target import HttpTarget


def _describe(error: ProviderError, attempts: int, budget: int | None = None) -> str:
    notes = [f"gave up after {attempts} attempts"] if attempts > 1 else []
    if budget is not None:
        notes.append(f"the run's retry budget of {budget} is spent")
    suffix = f" ({'; '.join(notes)})" if notes else ""
    return f"{error.label}: {' '.join(error.message.split())}{suffix}"


class ModelClient:
    """Calls any model by id; one client per run (its retry budget is the run's)."""

    def __init__(self, options: ClientOptions | None = None) -> None:
        self.options = options or ClientOptions()
        # A target or endpoint unpickled in a Ray worker was not built there, so the variables
        # its credentials come from were not declared secrets there (`model_post_init`).
        for target in self.options.targets.values():
            if isinstance(target, HttpTarget):
                declare_secret_variables(target.headers_env.values())
        declare_secret_variables(
            endpoint.api_key_env
            for endpoint in self.options.endpoints.values()
            if endpoint.api_key_env
        )
        self._routes: dict[str, Route] = {}
        self._providers: dict[str, Provider] = {}
        self._limits: dict[str, asyncio.Semaphore] = {}
        self._pacers: dict[str, EndpointPacer] = {}
        self._prices: dict[str, Price | None] = {}
        self._budget = RetryBudget(self.options.retry_budget)
        self._abandoned = 0
        """Calls given up unfinished by providers already closed (see `abandoned_calls`)."""
        self._rng = random.Random()
        self.batched: dict[str, Completion] = {}
        """Answers of the run's batches by cache key (`run --batch`): two cases asking the
        same are both served by one answer, as the response cache would serve them."""
        self._cache: ResponseCache | None = None
        if self.options.cache:
            path = self.options.cache_path or Path.cwd() / ".promptum" / "cache.sqlite"
            self._cache = ResponseCache(path, self.options.cache_ttl_s)

    @property
    def cache_problem(self) -> str | None:
        """The first problem the response cache met this run (shown as a warning), if any."""
        return self._cache.problem if self._cache else None

    @property
    def cache_skipped_secret(self) -> int:
        """Answers not cached this run because they held a secret from the environment."""
        return self._cache.skipped_secret if self._cache else 0

    @property
    def abandoned_calls(self) -> int:
        """Calls whose thread was left running when their wait ended (a sync target hung)."""
        live = sum(getattr(provider, "abandoned", 0) for provider in self._providers.values())
        return self._abandoned + live

    @property
    def retries_used(self) -> int:
        """Retries spent so far across every call of this client."""
        return self._budget.used

    def _route(self, model: str) -> Route:
        route = self._routes.get(model)
        if route is None:
            route = resolve(model, self.options.endpoints, targets=self.options.targets)
            self._routes[model] = route
        return route

    def _price(self, model: str) -> Price | None:
        """The model's price, looked up once per run (the table does not change in one)."""
        if model not in self._prices:
            self._prices[model] = price_for(model, self.options.pricing, self.options.endpoints)
        return self._prices[model]

    def check_model(self, model: str) -> None:
        """Raise `ProviderUnavailableError` if ``model`` cannot be called as configured."""
        self._route(model)

    def prepare(self, model: str) -> None:
        """Build the provider serving `model` now, so its SDK is not imported mid-run.

        A provider that cannot be built is left for its calls to report, as without this.
        A model the response cache answers is left for its first miss: a re-run served by
        the cache then never imports the SDK (most of such a run's time), and that miss,
        the model's first call, has no call of the model's in flight to delay.
        """
        with contextlib.suppress(Exception):  # whatever it is, each call says it, as before
            route = self._route(model)
            if self._cache is None or not provider_kind(route.kind).cacheable:
                self._provider(route)

    def max_concurrency(self, model: str) -> int:
        """How many calls to this model's endpoint may be in flight at once (local: 1)."""
        return self._route(model).max_concurrency

    def limit_note(self, model: str, requested: int) -> str | None:
        """Why `model` runs fewer than `requested` calls at once, if a limit the user set is why."""
        route = self._route(model)
        own = self.options.endpoints.get(route.endpoint)
        allowed = own.max_concurrency if own is not None else None
        if allowed is None or allowed >= requested:
            return None
        calls = "call" if allowed == 1 else "calls"
        return (
            f"concurrency {requested} requested; endpoint `{route.endpoint}` allows "
            f"{allowed} {calls} at once (its max_concurrency)"
        )

    def _provider(self, route: Route) -> tuple[Provider, asyncio.Semaphore, EndpointPacer | None]:
        """The provider serving a route, its limit of calls in flight and its pace, made once."""
        pacer = self._pacer(route)
        if route.model_id not in self._providers:
            provider = self._providers[route.model_id] = build_provider(route, self._timeout(route))
            # A provider that can show its answers' headers (the SDK ones) tells the pace.
            listen = getattr(provider, "listen", None)
            if listen is not None and pacer is not None:
                listen(pacer.observe)
        limit = self._limits.get(route.limit_key)
        if limit is None:
            limit = self._limits[route.limit_key] = asyncio.Semaphore(route.max_concurrency)
        return self._providers[route.model_id], limit, pacer

    def _pacer(self, route: Route) -> EndpointPacer | None:
        """The pace of the route's endpoint, shared by all its calls (none for the local model)."""
        if route.config is None:
            return None  # the embedded model: one call at a time, no rate to keep
        pacer = self._pacers.get(route.limit_key)
        if pacer is None:
            # The run's --rpm/--tpm are for model endpoints; a target states its own.
            run = self.options if route.target is None else None
            rpm = route.config.rpm or (run.rpm if run else None)
            tpm = route.config.tpm or (run.tpm if run else None)
            pacer = self._pacers[route.limit_key] = EndpointPacer(route.endpoint, rpm, tpm)
        return pacer

    def pacing_line(self) -> str | None:
        """How the run's endpoints are paced right now (rate, limit, back-off), if any is."""
        described = [pacer.describe() for pacer in self._pacers.values()]
        return "; ".join(text for text in described if text) or None

    async def complete(self, request: ModelRequest) -> Completion:
        """Answer one request: from the cache, or by calling the model with retries.

        Never raises for a failed call: the result's ``error`` says what went wrong.
        """
        try:
            route = self._route(request.model)
        except ProviderUnavailableError as exc:
            return Completion(model=request.model, error=str(exc), attempts=0)
        schema = request.response_schema
        if schema is not None and (problem := schema_problem(schema)):
            return Completion(model=request.model, error=problem, attempts=0)
        cacheable = provider_kind(route.kind).cacheable
        key = cache_key(request, route.identity) if self._cache and cacheable else None
        cached = self._cache.get(key) if self._cache and key else None
        if cached is not None:
            return self._checked(cached, request)
        if self.batched:  # answered by one of the run's batches, already priced
            answer = self.batched.get(key or cache_key(request, route.identity))
            if answer is not None:
                self._remember(key, answer)
                return self._checked(answer, request)
        try:
            provider, limit, pacer = self._provider(route)
        except ProviderUnavailableError as exc:
            return Completion(model=request.model, error=str(exc), attempts=0)
        async with limit:
            completion = await self._attempts(provider, route, request, pacer)
        self._remember(key, completion)
        return self._checked(completion, request)

    def _remember(self, key: str | None, completion: Completion) -> None:
        """Cache an answer under `key`, when there is a cache and the call succeeded."""
        if completion.error is None and self._cache and key:
            self._cache.put(key, completion)

    def _timeout(self, route: Route) -> float:
        """Seconds one call may take: the endpoint's or target's own limit, else the run's."""
        own = route.config.timeout_s if route.config is not None else None
        return own if own is not None else self.options.timeout_s

    def _retries(self, route: Route, error: ProviderError) -> int:
        """How many times `error` may be retried on this route (0: it is not)."""
        own = route.config.retries if route.config is not None else None
        if not error.retryable:
            return 0
        if (
            isinstance(error, ProviderTimeoutError)
            and own is None
            and not provider_kind(route.kind).retries_timeouts
        ):
            return 0  # a target that hung usually hangs again: retried only when asked
        return own if own is not None else self.options.max_retries

    async def _attempts(
        self, provider: Provider, route: Route, request: ModelRequest, pacer: EndpointPacer | None
    ) -> Completion:
        timeout = self._timeout(route)
        interruptible = provider_kind(route.kind).interruptible
        attempt = 0
        while True:
            attempt += 1
            admission = await pacer.admit(request) if pacer is not None else None
            started = time.perf_counter()
            outcome: Completion | ProviderError | None = None
            try:
                outcome = await self._attempt(provider, request, timeout, interruptible)
            except ProviderUnavailableError as exc:
                return Completion(model=request.model, error=str(exc), attempts=attempt)
            finally:
                if pacer is not None and admission is not None:
                    self._paced(pacer, admission, outcome)
            if isinstance(outcome, Completion):
                return self._answered(outcome, request, attempt, started)
            error = outcome
            given_up = self._given_up(route, request, error, attempt)
            if given_up is not None:
                return given_up
            await asyncio.sleep(
                backoff_delay(
                    attempt,
                    base_s=self.options.backoff_base_s,
                    max_s=self.options.backoff_max_s,
                    retry_after=error.retry_after,
                    rng=self._rng,
                )
            )

    async def _attempt(
        self, provider: Provider, request: ModelRequest, timeout: float, interruptible: bool
    ) -> Completion | ProviderError:
        """One call of `provider`: its answer, or the error it failed with."""
        try:
            if not interruptible:
                # A call that cannot be stopped is bounded by its own means (max_tokens).
                return await provider.complete(request)
            async with asyncio.timeout(timeout):
                return await provider.complete(request)
        except TimeoutError:
            return ProviderTimeoutError(f"no answer within {timeout:g} s")
        except ProviderError as exc:
            return exc
        except ProviderUnavailableError:
            raise
        except Exception as exc:  # a bug in a provider must fail one call, not the run
            return ProviderError(f"unexpected {type(exc).__name__}: {exc}")

    def _paced(
        self, pacer: EndpointPacer, admission: Admission, outcome: Completion | ProviderError | None
    ) -> None:
        """Tell the endpoint's pace how a call it admitted ended (None: it was cancelled)."""
        if isinstance(outcome, Completion):
            used = outcome.input_tokens, outcome.output_tokens
            total = None if used == (None, None) else (used[0] or 0) + (used[1] or 0)
            pacer.answered(admission, total)
        elif isinstance(outcome, RateLimitError):
            wait = outcome.retry_after
            pacer.refused(
                admission, None if wait is None else min(wait, self.options.backoff_max_s)
            )
        elif isinstance(outcome, ServerError):
            pacer.overloaded(admission)
        else:
            pacer.released(admission)

    def _answered(
        self, completion: Completion, request: ModelRequest, attempt: int, started: float
    ) -> Completion:
        """A successful call's answer, with its latency, attempts and cost."""
        # A provider that timed the model itself (local: without the model's load)
        # knows better than the wall clock around it.
        latency_ms = completion.latency_ms or (time.perf_counter() - started) * 1000
        price = self._price(request.model)
        cost = (
            price.cost_of(completion)
            if price
            else completion.cost_usd  # what a target reported, if anything
        )
        return completion.model_copy(
            update={
                "latency_ms": latency_ms,
                "attempts": attempt,
                "cached": False,
                "cost_usd": cost,
            }
        )

    def _given_up(
        self, route: Route, request: ModelRequest, error: ProviderError, attempt: int
    ) -> Completion | None:
        """The failed call's result when it is not retried (no retries or budget left)."""
        if attempt > self._retries(route, error):
            return Completion(
                model=request.model, error=_describe(error, attempt), attempts=attempt
            )
        if not self._budget.take():
            message = _describe(error, attempt, budget=self._budget.total)
            return Completion(model=request.model, error=message, attempts=attempt)
        return None

    def _checked(self, completion: Completion, request: ModelRequest) -> Completion:
        """Fill ``output`` from the text when a schema was asked for, or say why it does not fit."""
        if completion.tool_calls and request.tools is not None:
            calls = checked_calls(completion.tool_calls, request.tools)
            completion = completion.model_copy(update={"tool_calls": calls})
        schema = request.response_schema
        if schema is None or completion.error is not None:
            return completion
        try:
            output = parse_structured(completion.text, schema)
        except SchemaMismatch as exc:
            # The model answered: a misfit is the response's failure, not the call's error.
            return completion.model_copy(update={"output": None, "output_error": str(exc)})
        return completion.model_copy(update={"output": output})

    async def aclose(self) -> None:
        """Close every provider's connections and the cache."""
        for provider in self._providers.values():
            self._abandoned += getattr(provider, "abandoned", 0)
            aclose = getattr(provider, "aclose", None)
            if aclose is not None:  # optional: a plugin's provider may hold nothing
                await aclose()
        self._providers.clear()
        self._limits.clear()
        self._pacers.clear()
        if self._cache:
            self._cache.close()
