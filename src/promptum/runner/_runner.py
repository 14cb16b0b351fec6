"""The run loop: cases × models × repeats through the model client, graded, streamed to sinks.

One worker pool per model (as many workers as that model's provider allows at once), all
sharing a global limit, each pulling its next unit from a lazy iterator: memory stays
constant per case however many cases there are. A stop request (Ctrl-C, SIGTERM) lets
in-flight calls finish for a grace period, then cancels them; every finished result is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from promptum.completion import Completion
from promptum.grades import Grade, Status, status_of_grades
from promptum.providers import ModelRequest
from promptum.redaction import environment_secrets, scrub, scrub_model
from promptum.results import CaseResult, RunResult
from promptum.runner._case import TestCase
from promptum.runner._grade import grade_async
from promptum.runner._judge import judge_grades
from promptum.sinks import ResultSink

ResultKey = tuple[str, str, str, int]
"""(``suite/case`` id, variant, model, repeat): what identifies one result within a run."""

DEFAULT_CONCURRENCY = 8
DEFAULT_GRACE_S = 5.0


class Client(Protocol):
    """What the runner needs of `promptum.providers.ModelClient`."""

    def max_concurrency(self, model: str) -> int:
        """How many calls to `model` may be in flight at once."""
        ...

    async def complete(self, request: ModelRequest) -> Completion:
        """Make one call; failures come back as `Completion.error`."""
        ...


def result_key(result: CaseResult) -> ResultKey:
    """The identity of a result within its run."""
    return (result.key, result.variant or "", result.model, result.repeat)


def status_of(completion: Completion, grades: Iterable[Grade]) -> Status:
    """Error if the call failed; else what the grades say (`status_of_grades`)."""
    if not completion.ok:
        return "error"
    return status_of_grades(grades)


def request_for(case: TestCase, model: str, repeat: int = 1) -> ModelRequest:
    """The model call of one case (and repeat)."""
    params = case.params
    return ModelRequest(
        model=model,
        messages=case.messages,
        temperature=params.temperature,
        max_tokens=params.max_tokens,
        seed=params.seed,
        response_schema=dict(case.response_schema) if case.response_schema else None,
        extra=dict(params.extra),
        vars=dict(case.vars),
        context=case.context,
        tools=case.tools,
        tool_choice=case.tool_choice,
        sample=repeat - 1,  # repeats count from 1; samples from 0, as the cache keys them
    )


def plan_order(
    cases: Sequence[TestCase], models: Sequence[str]
) -> Callable[[CaseResult], tuple[int, int, int, int]]:
    """A sort key putting results in suite order: case, variant, model, then repeat."""
    case_index: dict[str, int] = {}
    variant_index: dict[str, int] = {}
    for case in cases:
        case_index.setdefault(case.key, len(case_index))
        variant_index.setdefault(case.variant, len(variant_index))
    model_index = {model: index for index, model in enumerate(models)}
    last = len(cases) + len(models)

    def key(result: CaseResult) -> tuple[int, int, int, int]:
        return (
            case_index.get(result.key, last),
            variant_index.get(result.variant or "", last),
            model_index.get(result.model, last),
            result.repeat,
        )

    return key


def planned_count(cases: Iterable[TestCase]) -> int:
    """How many results a run of `cases` produces."""
    return sum(len(case.models) * case.repeat for case in cases)


def _units(
    cases: Sequence[TestCase], model: str, done: set[ResultKey]
) -> Iterator[tuple[TestCase, int]]:
    """Lazily, every (case, repeat) still to run on `model`: workers share this iterator."""
    for case in cases:
        if model in case.models:
            for repeat in range(1, case.repeat + 1):
                if (case.key, case.variant, model, repeat) not in done:
                    yield case, repeat


class Runner:
    """Runs test cases on a model client; create one per run."""

    def __init__(
        self,
        client: Client,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        sinks: Sequence[ResultSink] = (),
        grace_s: float = DEFAULT_GRACE_S,
        secrets: tuple[str, ...] | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self._secrets = environment_secrets() if secrets is None else secrets
        """Scrubbed from every result and warning before any sink sees it."""
        self._client = client
        self._concurrency = concurrency
        self._sinks = list(sinks)
        self._grace_s = grace_s
        self._stopping = asyncio.Event()
        self._global = asyncio.Semaphore(concurrency)

    def stop(self) -> None:
        """Start no new calls; in-flight ones get the grace period, then are cancelled."""
        self._stopping.set()

    def _capacity(self, model: str) -> int:
        return min(self._concurrency, max(1, self._client.max_concurrency(model)))

    async def _complete(self, request: ModelRequest) -> Completion:
        # The run's one limit; each endpoint's own is the client's (judge calls included).
        async with self._global:
            return await self._client.complete(request)

    async def _run_one(self, case: TestCase, model: str, repeat: int) -> CaseResult:
        completion = await self._complete(request_for(case, model, repeat))
        try:
            # A check sees repeats from 0, as CheckInput has always documented.
            grades = await grade_async(case, completion, model=model, repeat=repeat - 1)
            if completion.ok and case.judge is not None:
                grades += await judge_grades(case.judge, case, completion.text, self._complete)
        except Exception as exc:  # a bug in grading must cost one result, not the run
            completion = completion.model_copy(
                update={"error": f"grading failed: {type(exc).__name__}: {exc}"}
            )
            grades = []
        return CaseResult(
            case_id=case.id,
            suite=case.suite or None,
            variant=case.variant or None,
            model=model,
            repeat=repeat,
            status=status_of(completion, grades),
            messages=list(case.messages),
            completion=completion,
            grades=grades,
            expected_behavior=case.expected_behavior,
            tags=list(case.tags),
            source=case.source,
            must_pass=case.must_pass,
        )

    def _notify(self, run: RunResult, event: str, argument: Any) -> None:
        """Call `event` on every sink; a sink that raises is reported and dropped, not fatal."""
        for sink in list(self._sinks):
            try:
                getattr(sink, event)(argument)
            except Exception as exc:  # a full disk must not cost the results in memory
                self._sinks.remove(sink)
                warning = (
                    f"{type(sink).__name__} failed and got no further results: "
                    f"{type(exc).__name__}: {exc}"
                )
                run.config.setdefault("warnings", []).append(scrub(warning, self._secrets))

    def _record(self, run: RunResult, result: CaseResult) -> None:
        # The one place results leave the runner: every sink, the console and the returned
        # run see them without secrets, so a sink added later cannot forget to scrub.
        result = scrub_model(result, self._secrets)
        run.results.append(result)
        self._notify(run, "add", result)

    async def _work(
        self, run: RunResult, units: Iterator[tuple[TestCase, int]], model: str
    ) -> None:
        for case, repeat in units:
            if self._stopping.is_set():
                return
            self._record(run, await self._run_one(case, model, repeat))

    async def _drive(self, run: RunResult, cases: Sequence[TestCase], done: set[ResultKey]) -> None:
        tasks = []
        for model in run.models:
            units = _units(cases, model, done)
            tasks += [
                asyncio.create_task(self._work(run, units, model))
                for _ in range(self._capacity(model))
            ]
        if not tasks:
            return
        everything: asyncio.Future[Any] = asyncio.gather(*tasks)
        stop: asyncio.Future[Any] = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait([everything, stop], return_when=asyncio.FIRST_COMPLETED)
            if not everything.done():
                await asyncio.wait({everything}, timeout=self._grace_s)
        finally:
            stop.cancel()
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await everything

    async def run(
        self,
        cases: Sequence[TestCase],
        run: RunResult,
        finished: Iterable[CaseResult] = (),
    ) -> RunResult:
        """Run every case on each of its models, skipping `finished` results (a resumed run)."""
        if not run.models:
            run.models = list(dict.fromkeys(m for case in cases for m in case.models))
        run.suite = scrub(run.suite, self._secrets)
        run.config.setdefault("planned_results", planned_count(cases))
        self._notify(run, "start", run)
        done: set[ResultKey] = set()
        for result in finished:
            done.add(result_key(result))
            self._record(run, result)
        try:
            await self._drive(run, cases, done)
        finally:
            # Reports list results in plan order, not finishing order: two runs diff cleanly.
            run.results.sort(key=plan_order(cases, run.models))
            run.finished_at = datetime.now(UTC)
            run.complete = len(run.results) >= run.config["planned_results"]
            self._notify(run, "finish", run)
        return run
