"""The run loop: cases × models × repeats through the model client, graded, streamed to sinks.

One worker pool per model (as many workers as that model's provider allows at once), all
sharing a global limit, each pulling its next unit from a lazy iterator: memory stays
constant per case however many cases there are. A stop request (Ctrl-C, SIGTERM) lets
in-flight calls finish for a grace period, then cancels them; every finished result is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from promptum.cases import TestCase
from promptum.errors import PromptumError
from promptum.foundations.redaction import environment_secrets, scrub, scrub_json, scrub_model
from promptum.providers import SAMPLING_PARAMETERS, ModelRequest
from promptum.runner._batch import answer_in_batches, batched
from promptum.runner._conversation import run_conversation
from promptum.runner._executor import Client, Execution, Executor, ResultKey
from promptum.runner._grade import DEFAULT_GRADE_TIMEOUT_S
from promptum.runner._journal import Journal
from promptum.runner._plan import Plan, Survey
from promptum.runner._response import graded, result_of
from promptum.runner._unit_context import TurnLog, UnitContext
from promptum.sinks import ResultSink, result_json
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, RunResult
from promptum.values.tally import RunTally

AFTER_PLAN = 2**62
"""The position of a result that matches no unit of the plan: after every planned one."""
DEFAULT_CONCURRENCY = 8
DEFAULT_GRACE_S = 5.0


def result_key(result: CaseResult) -> ResultKey:
    """The identity of a result within its run."""
    return (result.key, result.variant or "", result.model, result.repeat)


def request_for(case: TestCase, model: str, repeat: int = 1) -> ModelRequest:
    """The model call of one case (and repeat)."""
    params = case.params
    return ModelRequest(
        model=model,
        messages=case.messages,
        **{name: getattr(params, name) for name in SAMPLING_PARAMETERS},
        response_schema=dict(case.response_schema) if case.response_schema else None,
        extra=dict(params.extra),
        vars=dict(case.vars),
        context=case.context,
        tools=case.tools,
        tool_choice=case.tool_choice,
        sample=repeat - 1,  # repeats count from 1; samples from 0, as the cache keys them
    )


def planned_count(cases: Iterable[TestCase]) -> int:
    """How many results a run of `cases` produces."""
    return sum(len(case.models) * case.repeat for case in cases)


Unit = tuple[int, TestCase, int]
"""(position in the plan, case, repeat): one call of a case on a model."""


BUILD_AHEAD = 16
"""Cases a run reads in one go. Building cases from a data file's rows costs over twice the
CPU one at a time between model calls as a few in a row, the code and data of building
still in the CPU's caches: 10,000 CSV rows of benchmarks/run_overhead.py took 1.1 s one by
one, 0.45 s 16 at a time (64: 0.40 s). 16 built cases are a few tens of KB."""


def _built_ahead(cases: Iterable[TestCase]) -> Iterator[TestCase]:
    """`cases`, read `BUILD_AHEAD` at a time."""
    reading = iter(cases)
    while ahead := list(itertools.islice(reading, BUILD_AHEAD)):
        yield from ahead


def _units(
    cases: Sequence[TestCase], model: str, done: set[ResultKey], plan: Plan
) -> Iterator[Unit]:
    """Lazily, every unit still to run on `model`: workers share this iterator."""
    for index, case in enumerate(_built_ahead(cases)):
        if model in case.models:
            for repeat in range(1, case.repeat + 1):
                if (case.key, case.variant, model, repeat) not in done:
                    yield plan.position(index, case, model, repeat), case, repeat


def _positions(cases: Sequence[TestCase], done: set[ResultKey], plan: Plan) -> dict[ResultKey, int]:
    """The plan position of each unit in `done`."""
    positions: dict[ResultKey, int] = {}
    for index, case in enumerate(cases):
        for model in case.models:
            for repeat in range(1, case.repeat + 1):
                key = (case.key, case.variant, model, repeat)
                if key in done:
                    positions[key] = plan.position(index, case, model, repeat)
    return positions


async def run_unit(
    complete: Callable[[ModelRequest], Awaitable[Completion]],
    case: TestCase,
    model: str,
    repeat: int,
    secrets: tuple[str, ...] = (),
    *,
    grade_timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S,
    on_abandon: Callable[[], None] | None = None,
) -> CaseResult:
    """One unit of a run (a case on a model, one repeat) as `Runner` runs it, out of a run.

    The call goes through `complete`, then the response is graded and judged (judge calls
    through `complete` too) within `grade_timeout_s`; `on_abandon` hears of a grading
    thread left running past it. The result comes back with `secrets` replaced in every
    string, as a run's results reach its sinks: what the pytest plugin and each Ray worker
    hand on.
    """
    context = UnitContext(secrets, grade_timeout_s, on_abandon)
    result = await _unit_result(complete, case, model, repeat, context)
    return scrub_model(result, secrets)


async def _unit_result(
    complete: Callable[[ModelRequest], Awaitable[Completion]],
    case: TestCase,
    model: str,
    repeat: int,
    context: UnitContext,
) -> CaseResult:
    """One unit's result: the call through `complete`, then its grades (judge calls too).

    The response is graded with the context's `secrets` already replaced: a reason quotes
    ~60 characters of it, and a secret cut in two there would escape scrubbing; nor does a
    judge (perhaps another provider) get to read a key a model echoed. Grading runs off the
    event loop within `grade_timeout_s` (`grade_async`). A conversation runs turn by turn
    (`run_conversation`), kept for a resume in the context's `log`.
    """
    request = request_for(case, model, repeat)
    if case.is_conversation:
        return await run_conversation(complete, case, request, repeat, context)
    completion = scrub_model(await complete(request), context.secrets)
    completion, found = await graded(
        case,
        completion,
        model,
        repeat,
        complete,
        grade_timeout_s=context.grade_timeout_s,
        on_abandon=context.on_abandon,
    )
    return result_of(case, model, repeat, completion, found)


class Runner:
    """Runs test cases on a model client; create one per run.

    With `keep_results` (the default) the returned run holds every result; without, results
    only stream to the sinks and the run keeps its figures (`RunResult.tally`), so memory
    does not grow with the number of results.
    """

    def __init__(
        self,
        client: Client,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        sinks: Sequence[ResultSink] = (),
        grace_s: float = DEFAULT_GRACE_S,
        secrets: tuple[str, ...] | None = None,
        executor: Executor | None = None,
        keep_results: bool = True,
        grade_timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if grade_timeout_s is not None and not grade_timeout_s > 0:
            raise ValueError(f"grade_timeout_s must be above 0 (or None), got {grade_timeout_s}")
        self._secrets = environment_secrets() if secrets is None else secrets
        """Scrubbed from every result and warning before any sink sees it."""
        self._client = client
        self._concurrency = concurrency
        self._sinks = list(sinks)
        self._grace_s = grace_s
        self._stopping = asyncio.Event()
        self._global = asyncio.Semaphore(concurrency)
        self._executor = executor
        """Runs the units elsewhere (Ray actors); None: in this event loop (`_work`)."""
        self._keep = keep_results
        self._positions: list[int] = []
        """The plan position of each kept result, to sort them into plan order at the end."""
        self._tally = RunTally()
        self._pending: dict[ResultKey, int] = {}
        """Positions of the units an executor took and has not returned yet."""
        self._grade_timeout_s = grade_timeout_s
        """How long grading one response may take (`grade_async`); None: no limit."""
        self._abandoned = 0
        """Gradings left running on their threads, past the deadline or at a stop."""
        self._run_id: str | None = None
        """The run's id, which each conversation's id is made from (a resumed run's too)."""
        self._restarted = 0
        """Conversations a resume ran again from turn 1: their target keeps the history."""

    def stop(self) -> None:
        """Start no new calls; in-flight ones get the grace period, then are cancelled."""
        self._stopping.set()

    def _capacity(self, run: RunResult, model: str) -> int:
        """Workers for `model`: the run's concurrency, or fewer where its endpoint allows fewer."""
        capacity = min(self._concurrency, max(1, self._client.max_concurrency(model)))
        # A client that knows which limits the user set (`ModelClient`) says when one caps
        # the requested concurrency: the run is slower than asked for, and the user can fix it.
        limit_note = getattr(self._client, "limit_note", None)
        if capacity < self._concurrency and limit_note is not None:
            note = limit_note(model, self._concurrency)
            if note is not None and note not in run.warnings:  # one line per endpoint
                run.warnings.append(note)
        return capacity

    async def _complete(self, request: ModelRequest) -> Completion:
        # The run's one limit; each endpoint's own is the client's (judge calls included).
        async with self._global:
            return await self._client.complete(request)

    async def _run_one(self, case: TestCase, model: str, repeat: int) -> CaseResult:
        # Not `run_unit`: `_record` scrubs every result once, those of executors too.
        context = UnitContext(
            self._secrets,
            self._grade_timeout_s,
            self._abandon,
            self._turn_log() if case.is_conversation else None,
            self._run_id,
            self._restart,
        )
        return await _unit_result(self._complete, case, model, repeat, context)

    def _turn_log(self) -> TurnLog | None:
        """The sink keeping conversations' finished turns (the resume journal), if any."""
        return next((sink for sink in self._sinks if isinstance(sink, TurnLog)), None)

    def _abandon(self) -> None:
        self._abandoned += 1

    def _restart(self) -> None:
        self._restarted += 1

    def _warn_restarted(self, run: RunResult) -> None:
        """Say why a resume asked finished turns again: the result is still a whole run's."""
        count = self._restarted
        if count:
            run.warnings.append(
                f"{count} conversation{'s' if count > 1 else ''} interrupted mid-way "
                f"{'were' if count > 1 else 'was'} run again from turn 1 under a new "
                "conversation id: a target that keeps the history itself (history: server) "
                "cannot be given it back from the resume journal, so the finished turns were "
                "asked again (docs/conversations.md, Resume and the cache)"
            )

    def _warn_abandoned(self, run: RunResult) -> None:
        """Say how many gradings were left running: their threads still take CPU time."""
        count = self._abandoned
        if count:
            run.warnings.append(
                f"{count} grading{'s' if count > 1 else ''} did not finish (the grading "
                "deadline passed, or the run stopped) and "
                f"{'were' if count > 1 else 'was'} abandoned: Python cannot stop a check's "
                "thread, which may still run; it does not keep the run open"
            )

    def _drop(self, run: RunResult, sink: ResultSink, exc: Exception) -> None:
        """Stop feeding a sink that raised: its failure is a warning, not the run's end."""
        self._sinks.remove(sink)
        warning = (
            f"{type(sink).__name__} failed and got no further results: {type(exc).__name__}: {exc}"
        )
        run.warnings.append(scrub(warning, self._secrets))

    def _follow_pacing(self, line: Callable[[], str | None] | None = None) -> None:
        """Hand the client's pacing line (`ModelClient.pacing_line`), or `line`, to sinks."""
        line = line or getattr(self._client, "pacing_line", None)
        if line is None:
            return
        for sink in self._sinks:
            follow = getattr(sink, "follow_pacing", None)
            if follow is not None:
                follow(line)

    def _notify(self, run: RunResult, event: str) -> None:
        """Call `event` (start, finish) on every sink; one that raises is dropped."""
        for sink in list(self._sinks):
            try:
                getattr(sink, event)(run)
            except Exception as exc:  # a full disk must not cost the results in memory
                self._drop(run, sink, exc)

    def _scrubbed(self, result: CaseResult) -> CaseResult:
        """`result` without the secrets; encoded once, as the sinks then write it."""
        if not self._secrets:
            return result
        text = result_json(result)
        cleaned = scrub_json(text, self._secrets)
        return result if cleaned is text else CaseResult.model_validate_json(cleaned)

    def _record(self, run: RunResult, result: CaseResult, position: int) -> None:
        # The one place results leave the runner: every sink, the console and the returned
        # run see them without secrets, so a sink added later cannot forget to scrub.
        result = self._scrubbed(result)
        if self._keep:  # a kept run's figures are counted from its results when asked
            run.results.append(result)
            self._positions.append(position)
        else:
            self._tally.add(result, position)
        for sink in list(self._sinks):
            try:
                # A sink that stores results (`add_at`) also learns where each one belongs.
                add_at = getattr(sink, "add_at", None)
                if add_at is not None:
                    add_at(result, position)
                else:
                    sink.add(result)
            except Exception as exc:
                self._drop(run, sink, exc)

    def _record_returned(self, run: RunResult, result: CaseResult) -> None:
        """Record a result an executor returns, at the position its unit was planned at."""
        self._record(run, result, self._pending.pop(result_key(result)))

    def _planned(
        self, cases: Sequence[TestCase], done: set[ResultKey], plan: Plan
    ) -> Callable[[str], Iterator[tuple[TestCase, int]]]:
        """A model's plan for an executor: units as (case, repeat), positions noted here."""

        def units(model: str) -> Iterator[tuple[TestCase, int]]:
            for position, case, repeat in _units(cases, model, done, plan):
                self._pending[case.key, case.variant, model, repeat] = position
                yield case, repeat

        return units

    async def _work(self, run: RunResult, units: Iterator[Unit], model: str) -> None:
        try:
            for position, case, repeat in units:
                if self._stopping.is_set():
                    return
                self._record(run, await self._run_one(case, model, repeat), position)
        except PromptumError as exc:
            # A case built as it is read can fail now (its data file changed since loading):
            # the run stops as if interrupted, keeping every result it has.
            if not self._stopping.is_set():
                run.warnings.append(scrub(f"the run stopped early: {exc}", self._secrets))
                self.stop()

    async def _batch(
        self,
        run: RunResult,
        cases: Sequence[TestCase],
        models: list[str],
        done: set[ResultKey],
        plan: Plan,
    ) -> None:
        """Answer the calls of `models`' units still to run by batches, before the run."""

        def calls() -> Iterator[tuple[TestCase, ModelRequest, int]]:
            for model in models:
                for _, case, repeat in _units(cases, model, done, plan):
                    yield case, request_for(case, model, repeat), repeat

        journal = next((sink for sink in self._sinks if isinstance(sink, Journal)), None)
        context = UnitContext(self._secrets, self._grade_timeout_s, run_id=self._run_id)
        warnings = await answer_in_batches(
            self._client, calls, journal, self._stopping, self._follow_pacing, context
        )
        run.warnings += [scrub(warning, self._secrets) for warning in warnings]
        self._follow_pacing()  # the batches are over: the endpoints' pace again

    async def _drive(
        self, run: RunResult, cases: Sequence[TestCase], done: set[ResultKey], plan: Plan
    ) -> None:
        if self._executor is not None:

            def warn(warning: str) -> None:
                run.warnings.append(scrub(warning, self._secrets))

            execution = Execution(
                cases=cases,
                models=run.models,
                done=done,
                client=self._client,
                concurrency=self._concurrency,
                stopping=self._stopping,
                grace_s=self._grace_s,
                record=lambda result: self._record_returned(run, result),
                warn=warn,
                plan=self._planned(cases, done, plan),
                grade_timeout_s=self._grade_timeout_s,
            )
            await self._executor.execute(execution)
            return
        tasks = []
        for model in run.models:
            units = _units(cases, model, done, plan)
            tasks += [
                asyncio.create_task(self._work(run, units, model))
                for _ in range(self._capacity(run, model))
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

    def _record_finished(
        self, run: RunResult, cases: Sequence[TestCase], finished: Iterable[CaseResult], plan: Plan
    ) -> set[ResultKey]:
        """Record a resumed run's earlier results at their plan positions; their keys.

        `finished` is read twice, never held: a journal streams it from its file.
        """
        done = {result_key(result) for result in finished}
        if not done:
            return done
        positions = _positions(cases, done, plan)
        unrecorded = set(done)
        for result in finished:
            key = result_key(result)
            if key in unrecorded:  # once, should a journal hold a result twice
                unrecorded.discard(key)
                # A result matching no unit of the plan is kept all the same, last.
                self._record(run, result, positions.get(key, AFTER_PLAN))
        return done

    async def run(
        self,
        cases: Sequence[TestCase],
        run: RunResult,
        finished: Iterable[CaseResult] = (),
        survey: Survey | None = None,
    ) -> RunResult:
        """Run every case on each of its models, skipping `finished` results (a resumed run).

        `finished` is iterated twice (a journal's earlier results, streamed from its file).

        `survey` is the cases' `Survey` when the caller read them already (one pass less).
        """
        if survey is None:
            survey = Survey.of(cases)
        if not run.models:
            run.models = list(survey.models)
        plan = survey.plan(cases, run.models)
        run.suite = scrub(run.suite, self._secrets)
        self._run_id = run.run_id
        if run.planned_results is None:
            run.planned_results = plan.count
        self._tally = RunTally(run.models, repeated=plan.repeats > 1)
        batching = batched(self._client, run.models, executor=self._executor is not None)
        if batching:  # said before the start: the store records how the run was priced
            run.config["batch"] = batching
        self._follow_pacing()
        self._notify(run, "start")
        done = self._record_finished(run, cases, finished, plan)
        try:
            if batching:
                await self._batch(run, cases, batching, done, plan)
            await self._drive(run, cases, done, plan)
        finally:
            if self._keep:
                order = sorted(range(len(run.results)), key=self._positions.__getitem__)
                run.results[:] = [run.results[i] for i in order]
            else:
                run.streamed(self._tally)
            run.finished_at = datetime.now(UTC)
            run.complete = run.result_count >= run.planned_results
            self._warn_abandoned(run)
            self._warn_restarted(run)
            self._notify(run, "finish")
        return run
