"""One model client per pytest session (or xdist worker), on an event loop of its own thread.

Items and tests call it synchronously: each call is handed to the loop and waited for. A
loop that outlives the items keeps what a run shares: the provider's connections, the
embedded model loaded once, the response cache, the retry budget. Its own thread keeps it
apart from any loop the user's tests run (pytest-asyncio, anyio).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

from promptum.cases import TestCase
from promptum.foundations.redaction import environment_secrets
from promptum.providers import (
    ClientOptions,
    EndpointConfig,
    HttpTarget,
    ModelClient,
    ModelRequest,
    Price,
    PythonTarget,
)
from promptum.runner import run_unit
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult

T = TypeVar("T")

_CLOSE_GRACE_S = 5.0
"""How long calls still in flight at the end (after Ctrl-C) may take before they are cancelled."""


class Engine:
    """A model client on a private event loop; `close()` when the session ends."""

    def __init__(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
        self._loop = loop
        self._thread = thread
        self._secrets = environment_secrets()
        self._client: ModelClient | None = None

    @classmethod
    def start(
        cls,
        *,
        cache: bool,
        cache_path: Path,
        endpoints: Mapping[str, EndpointConfig] | None = None,
        pricing: Mapping[str, Price] | None = None,
        targets: Mapping[str, PythonTarget | HttpTarget] | None = None,
    ) -> Engine:
        """Start the loop's thread and open the client on it."""
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="promptum-engine", daemon=True)
        thread.start()
        engine = cls(loop, thread)
        options = ClientOptions(
            cache=cache,
            cache_path=cache_path,
            endpoints=dict(endpoints or {}),
            pricing=dict(pricing or {}),
            targets=dict(targets or {}),
        )
        try:
            engine._call(engine._open(options))
        except BaseException:
            engine.close()
            raise
        return engine

    async def _open(self, options: ClientOptions) -> None:
        # Made on the loop's thread: the cache's SQLite connection and the client's limits
        # belong to the thread and loop that use them.
        self._client = ModelClient(options)

    def _call(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def run_case(self, case: TestCase, model: str, repeat: int) -> CaseResult:
        """One case on one model (one repeat), graded and judged as `promptum run` does."""
        assert self._client is not None  # set by start()
        # An item is exactly one unit of the run's matrix; it comes back without secrets.
        return self._call(run_unit(self._client.complete, case, model, repeat, self._secrets))

    def judge(self, case: TestCase, response: str) -> list[Grade]:
        """The judge's grades of `response` to `case` (one per criterion)."""
        from promptum.runner import judge_grades

        assert self._client is not None
        judge = case.grading.judge
        assert judge is not None
        return self._call(judge_grades(judge, case, response, self._client.complete))

    def complete(self, request: ModelRequest) -> Completion:
        """One model call through the session's client (cache, retries, limits)."""
        assert self._client is not None
        return self._call(self._client.complete(request))

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        pending = [task for task in asyncio.all_tasks() if task is not current]
        if pending:  # calls left by an interrupted item
            _, late = await asyncio.wait(pending, timeout=_CLOSE_GRACE_S)
            for task in late:
                task.cancel()
        if self._client is not None:
            await self._client.aclose()

    def close(self) -> None:
        """Close the client and stop the loop's thread."""
        if self._loop.is_closed():
            return
        try:
            if self._thread.is_alive():
                self._call(self._shutdown())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
