"""What runs inside Ray: the workers that turn shards of units into results, and the permits.

Plain classes, made into actors by `promptum.executors._ray` with ``ray.remote``: nothing
here imports Ray, and the worker runs each unit with the runner's own `run_unit`.
"""

from __future__ import annotations

import asyncio
import pickle
import sys
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Sequence
from typing import Any

from promptum.cases import TestCase
from promptum.errors import ProviderUnavailableError
from promptum.foundations.redaction import environment_secrets
from promptum.foundations.user_code import SuiteModule, install_suite_modules
from promptum.providers import ClientOptions, ModelClient, ModelRequest, resolve
from promptum.runner import run_unit
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult

Unit = tuple[TestCase, str, int]
"""(case, model, repeat): one result to make."""
Limit = tuple[str, int]
"""A run-wide limit a call takes one permit of: its name and how many it has."""

PER_WORKER_KINDS = frozenset({"local", "python"})
"""Provider kinds whose resource each worker has for itself: its own embedded model, its
own copy of a Python target. Every other kind is a shared service, limited run-wide."""

RUN_LIMIT = "run"
"""The limit every call to a shared service takes: the run's ``--concurrency``."""


class Permits:
    """The run's limits on calls in flight, one actor shared by every worker.

    A worker asks for every limit of a call at once, always in the same order (the run's,
    then the endpoint's), so two calls never wait on each other's permits.
    """

    def __init__(self) -> None:
        self._in_use: Counter[str] = Counter()
        self._held: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self._gone: set[str] = set()
        self._changed = asyncio.Condition()

    async def acquire(self, holder: str, limits: Sequence[Limit]) -> None:
        """Wait until each limit has a permit free, then hold one of each for `holder`."""
        async with self._changed:
            for name, size in limits:
                while self._in_use[name] >= size:
                    await self._changed.wait()
                self._in_use[name] += 1
                self._held[holder][name] += 1
        if holder in self._gone:  # the worker died while it waited
            await self.forget(holder)

    async def release(self, holder: str, names: Sequence[str]) -> None:
        """Give back one permit of each limit `holder` held."""
        async with self._changed:
            held = self._held[holder]
            for name in names:
                if held[name] > 0:  # a forgotten holder's permits are back already
                    held[name] -= 1
                    self._in_use[name] -= 1
            self._changed.notify_all()

    async def forget(self, holder: str) -> None:
        """Give back every permit of a worker that died: its calls will never release them."""
        async with self._changed:
            self._gone.add(holder)
            for name, count in self._held.pop(holder, Counter()).items():
                self._in_use[name] -= count
            self._changed.notify_all()


class PermitClient:
    """A worker's model client whose calls to shared services first take run-wide permits."""

    def __init__(self, client: ModelClient, permits: Any, holder: str, concurrency: int) -> None:
        self._client = client
        self._permits = permits
        """The `Permits` actor's handle."""
        self._holder = holder
        self._concurrency = concurrency
        self._limits: dict[str, list[Limit]] = {}

    def _limits_of(self, model: str) -> list[Limit]:
        limits = self._limits.get(model)
        if limits is None:
            options = self._client.options
            try:
                route = resolve(model, options.endpoints, targets=options.targets)
            except ProviderUnavailableError:
                limits = []  # the call fails at once with this error: nothing to limit
            else:
                limits = (
                    []
                    if route.kind in PER_WORKER_KINDS
                    else [
                        (RUN_LIMIT, self._concurrency),
                        (f"endpoint:{route.limit_key}", route.max_concurrency),
                    ]
                )
            self._limits[model] = limits
        return limits

    async def complete(self, request: ModelRequest) -> Completion:
        """`ModelClient.complete`, within the run-wide limits of the model's service."""
        limits = self._limits_of(request.model)
        if not limits:
            return await self._client.complete(request)
        await self._permits.acquire.remote(self._holder, limits)
        try:
            return await self._client.complete(request)
        finally:
            # Not awaited: a cancelled call must still give its permits back.
            self._permits.release.remote(self._holder, [name for name, _ in limits])


class ShardWorker:
    """One Ray worker: its own model client (and embedded model), running shards of units."""

    def __init__(
        self,
        holder: str,
        options: bytes,
        permits: Any,
        concurrency: int,
        paths: Sequence[str],
        modules: Sequence[SuiteModule],
        grade_timeout_s: float | None,
    ) -> None:
        # The driver's import path, for user modules a case refers to by name; on another
        # machine only the folders that exist there count.
        sys.path.extend(path for path in paths if path not in sys.path)
        # The modules loaded from beside the suites, under the driver's names: cases and
        # targets refer to their functions and classes by those names.
        install_suite_modules(modules)
        # Pickled `ClientOptions`, unpickled only now: a Python target is a function of
        # one of those modules, which Ray could not import before they were installed.
        client_options: ClientOptions = pickle.loads(options)
        self._client = ModelClient(client_options)
        self._limited = PermitClient(self._client, permits, holder, concurrency)
        self._secrets = environment_secrets()
        """This worker's own secrets: results leave it without them (the driver scrubs its own)."""
        self._grade_timeout_s = grade_timeout_s
        """The run's grading deadline (`Session.grade_timeout_s`)."""

    def ready(self) -> None:
        """Answer once constructed, so the driver learns of a worker that cannot start."""

    async def run(self, shard: Sequence[Unit]) -> AsyncIterator[tuple[int, CaseResult]]:
        """Run a shard's units at once (the limits pace them); yield each as it finishes."""
        tasks = [
            asyncio.create_task(self._one(position, case, model, repeat))
            for position, (case, model, repeat) in enumerate(shard)
        ]
        try:
            for finished in asyncio.as_completed(tasks):
                yield await finished
        finally:  # cancelled by the driver (Ctrl-C after the grace period)
            for task in tasks:
                task.cancel()

    async def _one(
        self, position: int, case: TestCase, model: str, repeat: int
    ) -> tuple[int, CaseResult]:
        result = await run_unit(
            self._limited.complete,
            case,
            model,
            repeat,
            self._secrets,
            grade_timeout_s=self._grade_timeout_s,
        )
        return position, result

    async def close(self) -> tuple[str | None, int]:
        """Close the client (committing cached answers); its cache problem and secret skips."""
        await self._client.aclose()
        return self._client.cache_problem, self._client.cache_skipped_secret
