"""`run_suites`: suites to a recorded, reported and gated run, as `promptum run` makes it.

::

    outcome = run_suites(["suite.yaml"], RunSettings(tags=["smoke"], outputs=[Path("r.html")]))
    print(outcome.gate.line)

`plan_run` loads, selects and checks before any model is called; `PlannedRun.arun` runs,
streaming results to the run store and JSONL reports; `SuiteRun.write_reports` then writes
the whole-run reports (from the store when the run streamed). `run_suites` does all three.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from promptum.errors import ConfigError, PromptumError
from promptum.gate import GateDecision, decide
from promptum.runner import DEFAULT_CONCURRENCY, DEFAULT_GRADE_TIMEOUT_S
from promptum.session import Session, run_blocking
from promptum.sinks import ResultSink
from promptum.suites import Suite, unknown_variant
from promptum.values.asr_bounds import AsrBounds, goals_of
from promptum.values.run_result import CaseResult, RunResult

if TYPE_CHECKING:
    from promptum.cases import TestCase
    from promptum.providers import ClientOptions
    from promptum.reporting import ReportFormat
    from promptum.runner import Executor
    from promptum.store import RunStore

STORE_COMMIT_EVERY_S = 0.25
"""Results finishing closer together are committed to the run store together: a commit per
result cost more than the rest of what a result costs the run. A killed process loses at
most this much from the store, never from the resume journal, which `resume` reads."""


class UnjudgedBoundError(ConfigError):
    """A bound of `RunSettings.max_asr` on attacks only the judge detects, with the judge off."""


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How to run suites: `promptum run`'s options as values (each names its option)."""

    models: Sequence[str] = ()
    """Run every case on these models (``--model``); a case a target answers keeps it."""
    judge: str | Literal[False] | None = None
    """Judge with this model, keeping each suite's rubric (``--judge``); False: judge nothing
    (``--no-judge``); None: each suite's own judge."""
    repeat: int | None = None
    """Run every case this many times (``--repeat``); None: as its suite says."""
    patterns: Sequence[str] = ()
    """Only cases whose id or ``suite/id`` matches one of these globs (``--filter``)."""
    tags: Sequence[str] = ()
    """Only cases with one of these tags (``--tag``)."""
    prompts: Sequence[str] = ()
    """Only these prompt variants of the suites' `prompts:` (``--prompt``)."""
    fail_under: float | None = None
    """The least pass rate the gate accepts (``--fail-under``); None: every result must pass."""
    max_asr: AsrBounds | None = None
    """The highest attack success rates of red-team cases the gate accepts (``--max-asr``);
    per bound, it replaces a suite's `gate.max_asr`."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Model calls in flight at once (``--concurrency``)."""
    client_options: ClientOptions | None = None
    """The model client's settings: timeouts, cache (``--timeout``, ``--no-cache``)."""
    grade_timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S
    """Seconds grading one response may take (``--grade-timeout``); None: no limit."""
    executor: Executor | None = None
    """Where the units run: None in this process, or e.g. a `RayExecutor` (``--executor``)."""
    outputs: Sequence[Path] = ()
    """Reports to write, each in the format its extension picks (``-o``): JSONL as results
    arrive, the others by `SuiteRun.write_reports`."""
    summary_md: Path | None = None
    """A Markdown summary to write, for CI (``--summary-md``)."""
    journal_dir: Path | None = None
    """Where finished results are journalled, so a later run can `resume` from them."""
    resume: bool = False
    """Continue an interrupted run of the same cases from `journal_dir` (``--resume``)."""


@dataclass(frozen=True, slots=True)
class Written:
    """Something a run writes (a report, the run store), and whether it was written whole."""

    line: str
    """What was written, in words (``wrote r.html``, ``recorded as run ab12 in ...``); for
    one not written whole, what it is (``r.html``)."""
    problem: str | None = None
    """Why it is missing or incomplete; None: it was written whole."""


class _Watched:
    """A sink whose failure is remembered, so the run neither claims its output nor passes."""

    def __init__(self, sink: ResultSink, what: str, done: str) -> None:
        self.sink = sink
        self.what = what
        """What the sink writes, as the outcome names it (``r.jsonl``, ``the run store ...``)."""
        self.done = done
        """What it says once written; ``{run_id}`` is filled in."""
        self.failed = False

    def _call(self, event: str, *arguments: Any) -> None:
        try:
            getattr(self.sink, event)(*arguments)
        except Exception:
            self.failed = True
            raise  # the runner drops the sink and records the reason as a warning

    def start(self, run: RunResult) -> None:
        """Pass on the start of the run."""
        self._call("start", run)

    def add(self, result: CaseResult) -> None:
        """Pass on one result."""
        self._call("add", result)

    def add_at(self, result: CaseResult, position: int) -> None:
        """Pass on one result with its place in the plan, to a sink that wants it."""
        if hasattr(self.sink, "add_at"):
            self._call("add_at", result, position)
        else:
            self._call("add", result)

    def finish(self, run: RunResult) -> None:
        """Pass on the end of the run."""
        self._call("finish", run)

    def flush(self) -> None:
        """Write what the sink holds back, if it holds any back (the run store)."""
        if hasattr(self.sink, "flush"):
            self._call("flush")

    def written(self, run: RunResult) -> Written:
        """What the sink wrote, or why it is incomplete."""
        if self.failed:
            return Written(
                self.what, f"{self.what} is incomplete: writing it failed (see the warning above)"
            )
        return Written(self.done.replace("{run_id}", run.run_id))


Results = Callable[[], Iterator[CaseResult]]
"""Reads a streamed run's results back (from the run store), in plan order."""


@dataclass(slots=True)
class SuiteRun:
    """A run of suites, over or stopped: its result, the gate's decision, what recorded it."""

    run: RunResult
    gate: GateDecision
    """`promptum.gate.decide(run)`: must-pass cases, `fail_under`, `max_asr`, a stopped run."""
    recorded: list[Written]
    """The run store and the streamed reports (JSONL), each written whole or not."""
    store: RunStore | None = None
    """The run history the run was recorded in; None: none."""
    reports: list[Written] = field(default_factory=list)
    """The whole-run reports, once `write_reports` has written them."""
    _targets: list[tuple[Path, str]] = field(default_factory=list, repr=False)
    """Each whole-run report: its path and format."""
    _results: Results | str | None = field(default=None, repr=False)
    """How a streamed run's results are read back, or why they cannot be; None: kept."""

    @property
    def problems(self) -> list[str]:
        """Why an output is missing or incomplete: every report and recorder that failed."""
        return [out.problem for out in (*self.reports, *self.recorded) if out.problem]

    def write_reports(self) -> list[Written]:
        """Write every whole-run report; one that cannot be written stops no other."""
        if not self._targets:  # nothing of the reports (~15 ms to import) is needed
            return []
        from promptum.reporting import write_report

        results = self._results
        stored = None
        if callable(results) and self.store is not None:  # recorded by this very process
            stored = partial(self.store.iter_result_json, self.run.run_id)
        self.reports = []
        for path, fmt in self._targets:
            if isinstance(results, str):
                problem = f"it is written from the run store, which {results}"
                self.reports.append(Written(str(path), f"could not write {path}: {problem}"))
                continue
            try:
                write_report(self.run, path, fmt, results=results, stored=stored)
            except (OSError, PromptumError) as exc:
                self.reports.append(Written(str(path), f"could not write {path}: {exc}"))
            else:
                self.reports.append(Written(f"wrote {path}"))
        return self.reports


@dataclass(slots=True)
class PlannedRun:
    """Suites loaded, their cases selected and checked: ready to run, no model called yet."""

    session: Session
    settings: RunSettings
    formats: list[tuple[Path, ReportFormat]]
    """Each of the settings' ``outputs`` with its format."""
    _recorders: list[_Watched] = field(default_factory=list, repr=False)

    async def arun(
        self,
        *,
        store: RunStore | None = None,
        sinks: Sequence[ResultSink] = (),
        stop: asyncio.Event | None = None,
    ) -> SuiteRun:
        """Run the cases; results stream to `sinks`, the `store` and JSONL reports.

        With a `store` (the run history: `promptum run` records in one unless ``--no-store``)
        the run keeps only the results' figures, unless the suites have prompt variants, and
        whole-run reports are written from the store. Setting `stop` ends the run early,
        keeping what finished (`Session.arun`).
        """
        settings = self.settings
        self._recorders = _recorders(store, self.formats)
        # With the store on, results stream: memory stays flat at any size and whole-run
        # reports are written from the store afterwards. Prompt variants keep them, as a
        # summary compares the variants case by case.
        streams = store is not None and not any(s.variants for s in self.session.suites)
        run = await self.session.arun(
            sinks=[*sinks, *self._recorders],
            stop=stop,
            journal_dir=settings.journal_dir,
            resume=settings.resume,
            keep_results=not streams,
        )
        results: Results | str | None = None
        if streams and store is not None:
            results = _stored_results(store, run, self._recorders[0])
        recorded = [recorder.written(run) for recorder in self._recorders]
        if isinstance(results, str):  # the store's own line says it cannot give them back
            what = self._recorders[0].what
            recorded[0] = Written(what, f"{what} {results}")
        targets = [(path, report.name) for path, report in self.formats if not report.streams]
        if settings.summary_md is not None:
            targets.append((settings.summary_md, "md"))
        return SuiteRun(run, decide(run), recorded, store, [], targets, results)

    def flush(self) -> None:
        """Write what the recorders hold back now (the run store): the process ends at once."""
        for recorder in self._recorders:
            with contextlib.suppress(Exception):  # nothing is waited for any more
                recorder.flush()


def _recorders(
    store: RunStore | None, reports: Sequence[tuple[Path, ReportFormat]]
) -> list[_Watched]:
    """The run store's recorder first, then a sink for each report that streams (JSONL)."""
    recorders = []
    if store is not None:  # the run history: `promptum runs`, `compare`
        history = store.recorder(commit_every_s=STORE_COMMIT_EVERY_S)
        done = f"recorded as run {{run_id}} in {store.path}"
        recorders.append(_Watched(history, f"the run store {store.path}", done))
    # A format that streams (JSONL) is written as results arrive, so an interrupted or killed
    # run keeps it; the others are written once the run is over.
    for path, report in reports:
        if report.sink is not None:
            recorders.append(
                _Watched(report.sink(path), str(path), f"wrote {path} as results arrived")
            )
    return recorders


def _stored_results(store: RunStore, run: RunResult, recorder: _Watched) -> Results | str:
    """A streamed run's results, read back from the store when asked; or why they cannot be.

    Reports are written from the store only when it holds every result the run counted:
    one written from a store that failed halfway would show a gate other than the run's.
    """
    if recorder.failed:
        return "failed during the run and does not hold every result"
    try:
        stored = store.summary(run.run_id).total
    except PromptumError as exc:
        return f"cannot give the run's results back ({exc})"
    if stored != run.result_count:
        return f"holds {stored} of the run's {run.result_count} results"
    return lambda: store.iter_results(run.run_id)


def _report_formats(outputs: Sequence[Path]) -> list[tuple[Path, ReportFormat]]:
    """Each output path with the format its extension picks, checked before any model call."""
    if not outputs:  # the report formats (~15 ms to import) are not needed
        return []
    from promptum.reporting import format_of

    return [(path, format_of(path)) for path in outputs]


def _selected(
    case: TestCase, patterns: Sequence[str], tags: Sequence[str], prompts: Sequence[str]
) -> bool:
    if prompts and case.variant not in prompts:
        return False
    # A pattern matches the case's own id or its ``suite/id``.
    ids = (case.id, case.key)
    if patterns and not any(fnmatch.fnmatchcase(i, p) for p in patterns for i in ids):
        return False
    return not tags or any(tag in case.tags for tag in tags)


def _check_prompts(session: Session, prompts: Sequence[str]) -> None:
    """Refuse a prompt variant no suite has: it would silently run nothing."""
    # The suites' variant names: reading every case (each row of a data file) is not needed.
    problem = unknown_variant(prompts, (name for s in session.suites for name in s.variants))
    if problem is not None:
        raise ConfigError(problem)


def _select(session: Session, settings: RunSettings) -> None:
    """Keep the cases `settings` select, and the suites they are from; refuse keeping none."""
    patterns, tags, prompts = settings.patterns, settings.tags, settings.prompts
    if prompts:
        _check_prompts(session, prompts)
    if not (patterns or tags or prompts):  # every case is kept, and none need be read here
        if not session.tests:
            raise ConfigError("no suite to run: give at least one")
        return
    session.select(lambda case: _selected(case, patterns, tags, prompts))
    if not session.tests:
        raise ConfigError("no case matches the given --filter/--tag/--prompt")
    # The run's header and record name only the suites a case is kept from.
    chosen = {case.suite for case in session.tests}
    session.suites = [suite for suite in session.suites if suite.name in chosen]


def _refuse_unjudged(session: Session, given: AsrBounds | None, goals: set[str]) -> None:
    """Refuse a bound on attacks only the judge detects: with it off, it could never hold."""
    for _, why in given.unjudged(goals) if given else ():
        raise UnjudgedBoundError(why)
    for suite in session.suites:
        for goal, why in suite.max_asr.unjudged(goals):
            where = "gate.max_asr" if goal is None else f"gate.max_asr.{goal}"
            raise ConfigError(f"{suite.path}: {where}: {why}")


def _bound(session: Session, settings: RunSettings) -> None:
    """Set the ASR bounds `settings` give; refuse a bound no case or judge can decide."""
    given, judged = settings.max_asr, settings.judge is not False
    if not given and (judged or not any(s.max_asr for s in session.suites)):
        return  # nothing to check: no case need be read
    goals = goals_of(case.tags for case in session.tests)
    if given:
        problem = given.unknown_goal(goals)
        if problem is not None:
            raise ConfigError(problem)
        session.max_asr = given
    if not judged:
        _refuse_unjudged(session, given, goals)


def _overrides(settings: RunSettings) -> dict[str, Any]:
    """What `Session.override` replaces in every case."""
    overrides: dict[str, Any] = {"models": settings.models, "repeat": settings.repeat}
    if settings.judge is False:
        overrides["judge"] = None
    elif settings.judge:
        overrides["judge"] = settings.judge
    return overrides


def plan_run(
    suites: Iterable[Suite | Path | str], settings: RunSettings | None = None
) -> PlannedRun:
    """The suites' cases selected, overridden and checked as `settings` say; nothing runs.

    A path is loaded as `Session.add_suite` loads it. Raises ConfigError for what would spoil
    the run before any model is called: an unknown report format, a prompt variant or
    red-team goal no case has, no case selected.
    """
    settings = settings or RunSettings()
    reports = _report_formats(settings.outputs)
    session = Session(
        concurrency=settings.concurrency,
        client_options=settings.client_options,
        fail_under=settings.fail_under,
        executor=settings.executor,
        grade_timeout_s=settings.grade_timeout_s,
    )
    for suite in suites:
        session.add_suite(suite)
    _select(session, settings)
    _bound(session, settings)
    session.override(**_overrides(settings))
    return PlannedRun(session, settings, reports)


def run_suites(
    suites: Iterable[Suite | Path | str],
    settings: RunSettings | None = None,
    *,
    store: RunStore | None = None,
    sinks: Sequence[ResultSink] = (),
) -> SuiteRun:
    """Run suites as `promptum run` does and wait: plan, run, then write the reports.

    See `plan_run` and `PlannedRun.arun`. Not inside a running event loop: there,
    ``await plan_run(...).arun()``.
    """
    planned = plan_run(suites, settings)
    outcome = run_blocking(
        lambda: planned.arun(store=store, sinks=sinks), "run_suites()", "planned.arun()"
    )
    outcome.write_reports()
    return outcome
