"""Grading one response without a model: checks, the validator, then field assertions.

Checks the user wrote (``type: python``, registered types) see the whole `CheckInput`; an
async one is awaited by `grade_async`, the runner's way in. `grade_async` grades the user's
code (checks, validators, response models, transforms) on a daemon worker thread within a
deadline, so one that loops or sleeps costs its own result (an error grade), never the event
loop that every other case and Ctrl-C run on. Built-in checks whose every test has a bound
within the deadline (`CheckPlan.bound_s`: string tests of microseconds, regex searches that
stop at their own time limit) grade on the loop: the hop to a thread and back costs more
than they do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError

from promptum.cases import Grading, TestCase
from promptum.checks import (
    TOOL_CHECK_TYPES,
    CheckInput,
    CheckPlan,
    CustomCheck,
    Run,
    call_errors_grade,
    check_plan,
    seen,
    seen_later,
    settle,
    shorten,
)
from promptum.evaluations import evaluate
from promptum.providers import run_in_worker
from promptum.runner._transform import case_view
from promptum.values.completion import Completion
from promptum.values.documented_views import assertion_grade
from promptum.values.grade import Grade

_REASON_LIMIT = 300
_FITS_SCHEMA = "Output fits the response schema"

DEFAULT_GRADE_TIMEOUT_S = 60.0
"""How long grading one response may take in a run (checks, validator, field assertions; not
the judge, whose calls have the model's time limit). Checks take microseconds; one that calls
a service gets as long as a model call (60 s by default), more than the `similar` check's own
30 s limit on its embedding endpoint, so a check's own limit speaks first."""

Pending = list[tuple[int, CustomCheck, Awaitable[Grade]]]
"""The async checks of one response still to await: their position, check and awaitable."""


def _validator_result(grading: Grading, text: str) -> Grade | None:
    validator = grading.validator
    if validator is None:
        return None
    name = type(validator).__name__
    try:
        description = validator.describe()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: only Ctrl-C stops the run
        description = f"{name} (describe() raised {type(exc).__name__})"
    try:
        passed, details = validator.validate(text)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a user's validator must not stop the run
        error = f"{name}.validate raised {type(exc).__name__}: {exc}"
        return Grade("validator", "validator", False, None, None, description, error)
    if passed:
        return Grade("validator", "validator", True, None, None, description)
    # The validator's own description says what the response missed (with the error it
    # names, if any); its details are kept beside it for reports, not shown raw.
    named = details.get("error") if isinstance(details, dict) else None
    reason = shorten(
        f"{description}: {named}" if isinstance(named, str) else description, _REASON_LIMIT
    )
    return Grade(
        "validator", "validator", False, None, reason, description, details=_jsonable(details)
    )


def _jsonable(details: Any) -> dict[str, Any]:
    try:
        data = json.loads(json.dumps(details, default=str))
    except (TypeError, ValueError):
        data = repr(details)
    return data if isinstance(data, dict) else {"details": data}


def _parsed_output(case: TestCase, completion: Completion) -> tuple[Any, Grade | None]:
    """The structured output to assert on, and the grade of parsing it into the model.

    The output is the model's instance when it parses, else the raw JSON (the assertions
    still run on it, so each field gets its own verdict).
    """
    output = completion.output if completion.output is not None else {}
    model = case.response_model
    if completion.output_error is not None:
        kind, description = (
            ("response_model", f"Output is a valid {model.__name__}")
            if model is not None
            else ("response_schema", _FITS_SCHEMA)
        )
        return output, Grade(
            "check", kind, False, None, shorten(completion.output_error, _REASON_LIMIT), description
        )
    if model is None:
        if completion.output is None:  # not parsed against the schema (no client's call)
            return output, None
        # A verdict like any other: a case graded by its schema alone is graded.
        return output, Grade("check", "response_schema", True, None, None, _FITS_SCHEMA)
    description = f"Output is a valid {model.__name__}"
    try:
        parsed = model.model_validate(output)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        return output, Grade(
            "check", "response_model", False, None, shorten(problems, _REASON_LIMIT), description
        )
    return parsed, Grade("check", "response_model", True, None, None, description)


_CASES_KEPT = 1024
Entry = tuple[TestCase, Run, float | None]
"""A case that built-in checks alone grade, its plan's run, and the longest they can take on
one response (`CheckPlan.bound_s`; None: no bound of their own)."""

_checks_runs: dict[int, Entry] = {}
"""The cases that built-in checks alone grade, by identity: a run grades each case many
times (models, repeats), so one look-up replaces finding its plan and reading its fields
for every response."""


def _checks_entry(case: TestCase) -> Entry | None:
    """How to grade `case` if its built-in checks are all that grade it (the usual case)."""
    entry = _checks_runs.get(id(case))
    if entry is not None and entry[0] is case:  # held by the entry, so its id is not reused
        return entry
    plan = check_plan(case.grading.checks)
    if not _checks_only(case, plan):
        return None
    if len(_checks_runs) >= _CASES_KEPT:
        _checks_runs.pop(next(iter(_checks_runs)), None)  # the oldest
    entry = _checks_runs[id(case)] = (case, plan.run, plan.bound_s)
    return entry


def _checks_run(case: TestCase) -> Run | None:
    """`_checks_entry`'s run, if built-in checks are all that grade `case`."""
    entry = _checks_runs.get(id(case))
    if entry is None or entry[0] is not case:  # its first response (or a case not cached)
        entry = _checks_entry(case)
    return None if entry is None else entry[1]


def _checks_only(case: TestCase, plan: CheckPlan) -> bool:
    """Whether built-in checks are all that grade the case's responses."""
    grading = case.grading
    return (
        not plan.custom
        and grading.validator is None
        and case.response_schema is None
        and case.target is None
        and grading.transform is None
    )


@dataclass(slots=True)
class _Progress:
    """How far grading one response got, written by the thread grading it.

    Read on the loop when the deadline passes, while the thread may still be writing: fields
    are replaced whole and `grades` only assigned by index or appended to, so a copy (atomic
    under the GIL) is a state that was true at some moment.
    """

    grades: list[Grade] = field(default_factory=list)
    """The grades so far: a check not yet run holds a "was not run" error in its place."""
    running: str | tuple[int, CustomCheck] = "the checks"
    """What was grading: a check the user wrote (its position in `grades`, and itself), or
    the part named (the validator, the field assertions...)."""


def _grades(
    case: TestCase,
    plan: CheckPlan,
    completion: Completion,
    model: str | None,
    repeat: int,
    progress: _Progress | None = None,
) -> tuple[list[Grade], Pending]:
    """Every grade but those of async checks, which come back pending, in their places."""
    if progress is None:
        progress = _Progress()
    shown: str | None = None  # the transformed text, recorded on every grade that saw it
    if case.grading.transform is not None:
        progress.running = "the case's transform"
        view = case_view(case, completion, model, repeat)
        if isinstance(view, list):  # it failed: so does everything that needed it
            progress.grades = view
            return view, []
        if view.text != completion.text:
            shown = view.text
        completion = view.completion
    grades = progress.grades = plan.run(completion)
    output: Any = None
    parse_grade: Grade | None = None
    if case.response_schema is not None:
        progress.running = "parsing the structured output"
        output, parse_grade = _parsed_output(case, completion)
    elif case.target is not None:  # a target's structured answer needs no schema
        output = completion.output if completion.output is not None else {}
    pending: Pending = []
    if plan.custom:
        parsed = case.response_model is not None and parse_grade is not None and parse_grade.passed
        check = case.check_input(completion, output if parsed else completion.output, model, repeat)
        pending = _custom_grades(plan, check, grades, progress, shown)
    _add_model_grades(grades, case, completion, output, parse_grade, progress)
    if shown is not None:
        grades[:] = [seen(grade, shown) for grade in grades]
    return grades, pending


def _custom_grades(
    plan: CheckPlan,
    check: CheckInput,
    grades: list[Grade],
    progress: _Progress,
    shown: str | None,
) -> Pending:
    """Grade the checks the user wrote into their places in `grades`; the async ones pending."""
    pending: Pending = []
    for index, custom in plan.custom:
        progress.running = (index, custom)
        outcome = custom.grade(check)
        if isinstance(outcome, Grade):
            grades[index] = outcome
        else:
            pending.append(
                (index, custom, outcome if shown is None else seen_later(outcome, shown))
            )
    progress.running = "grading"  # every check the user wrote has answered
    return pending


def _add_model_grades(
    grades: list[Grade],
    case: TestCase,
    completion: Completion,
    output: Any,
    parse_grade: Grade | None,
    progress: _Progress,
) -> None:
    """Add the validator's grade, the structured output's parse and its field assertions.

    In place, to the list the deadline keeps (`_Progress.grades`) should one of them hang.
    """
    grading = case.grading
    if grading.validator is not None:
        progress.running = f"the validator {type(grading.validator).__name__}"
    validator_result = _validator_result(grading, completion.text)
    if validator_result is not None:
        grades.append(validator_result)
    if parse_grade is not None:
        grades.append(parse_grade)
    structured = case.response_schema is not None or case.target is not None
    if structured and (grading.expected or grading.attack_target):
        progress.running = "the field assertions"
        expected = dict(grading.expected) if grading.expected else None
        attack_target = dict(grading.attack_target) if grading.attack_target else None
        evaluation = evaluate(output, expected, attack_target)
        grades += [assertion_grade(detail) for detail in evaluation.details]


def grade(
    case: TestCase, completion: Completion, *, model: str | None = None, repeat: int = 0
) -> list[Grade]:
    """The grades of the case's checks, validator and field assertions on a completion.

    An async check of the user's is run to completion here (in async code, `grade_async`
    awaits it on the running loop instead).
    """
    if completion.error is not None:  # `not completion.ok`, without the property's call
        return []
    # `_checks_run`, in line: a call costs more than some of the checks it leads to.
    entry = _checks_runs.get(id(case))
    if entry is None or entry[0] is not case:
        entry = _checks_entry(case)
    if entry is not None:  # spared the steps of `_grades`
        grades = entry[1](completion)
        return _with_call_errors(case, completion, grades) if completion.tool_calls else grades
    grades, pending = _grades(case, check_plan(case.grading.checks), completion, model, repeat)
    for index, _, outcome in pending:
        grades[index] = settle(outcome)
    return _with_call_errors(case, completion, grades)


def _with_call_errors(case: TestCase, completion: Completion, grades: list[Grade]) -> list[Grade]:
    """The grades, and one failing for the calls that carry an error if no tool check read them.

    A call of a tool that is not offered, or with arguments that do not fit, must not leave
    a response green because the case has no tool check: its tool checks fail on it, and
    without any this grade does.
    """
    if not completion.tool_calls or any(c.type in TOOL_CHECK_TYPES for c in case.grading.checks):
        return grades
    failed = call_errors_grade(completion)
    return grades if failed is None else [*grades, failed]


async def grade_async(
    case: TestCase,
    completion: Completion,
    *,
    model: str | None = None,
    repeat: int = 0,
    timeout_s: float | None = DEFAULT_GRADE_TIMEOUT_S,
    on_abandon: Callable[[], None] | None = None,
) -> list[Grade]:
    """`grade` on a daemon worker thread, within `timeout_s`; async checks awaited here.

    Built-in checks that take at most `CheckPlan.bound_s`, less than `timeout_s`, grade here
    instead: string tests bounded by the response's length and regex searches bounded by
    their time limit, cheaper than the hop to a thread. A search that runs to its limit holds
    the loop that long (a thread would not), and fails its check as it would on a thread.
    ``model`` and ``repeat`` are what a check sees as `CheckInput.model` and ``.repeat``
    (default: the completion's model, the first repeat). Past the deadline (None: none) the
    grades so far are kept and what was still grading becomes an error grade naming it and
    the deadline; its thread is abandoned (Python cannot stop one) and `on_abandon` called.
    Cancelling the call abandons the thread the same way.
    """
    if completion.error is not None:
        return []
    entry = _checks_entry(case)
    if entry is not None and _within(entry[2], timeout_s):
        # Bounded tests take microseconds as a rule: a hop to a thread would cost more.
        return _with_call_errors(case, completion, entry[1](completion))
    loop = asyncio.get_running_loop()
    deadline = None if timeout_s is None else loop.time() + timeout_s
    progress = _Progress()
    future = run_in_worker(partial(_graded, case, completion, model, repeat, progress), on_abandon)
    try:
        done, _ = await asyncio.wait({future}, timeout=timeout_s)
    finally:
        future.cancel()  # nothing once it is done; else its thread is abandoned
    if not done:
        return _overdue(progress, timeout_s)
    graded: tuple[list[Grade], Pending] = future.result()
    grades, pending = graded
    if pending:
        left = None if deadline is None else max(0.0, deadline - loop.time())
        await _settle_pending(grades, pending, left, timeout_s)
    return _with_call_errors(case, completion, grades)


def _within(bound_s: float | None, timeout_s: float | None) -> bool:
    """Whether checks that take at most `bound_s` (None: no bound) finish before `timeout_s`.

    Strictly before: at the deadline the thread's grading gives the deadline's error, where
    checks on the loop would give their own failures.
    """
    return bound_s is not None and (timeout_s is None or bound_s < timeout_s)


def _graded(
    case: TestCase, completion: Completion, model: str | None, repeat: int, progress: _Progress
) -> tuple[list[Grade], Pending]:
    """What a worker thread grades: every grade but the async checks', left pending."""
    run = _checks_run(case)
    if run is not None:  # spared the steps of `_grades`
        return run(completion), []
    return _grades(case, check_plan(case.grading.checks), completion, model, repeat, progress)


async def _settle_pending(
    grades: list[Grade], pending: Pending, left: float | None, timeout_s: float | None
) -> None:
    """Await the async checks together, for at most `left` seconds; a late one is an error."""
    tasks = {asyncio.ensure_future(outcome): (index, check) for index, check, outcome in pending}
    try:
        done, _ = await asyncio.wait(tasks, timeout=left)
    finally:
        for task in tasks:
            task.cancel()  # a late check is stopped at its next await
    for task, (index, check) in tasks.items():
        grades[index] = task.result() if task in done else check.error(_late(timeout_s))


def _late(timeout_s: float | None) -> str:
    limit = "" if timeout_s is None else f" of {timeout_s:g} s"
    return (
        f"did not finish within the grading deadline{limit} "
        "(--grade-timeout or Session(grade_timeout_s=...) sets it)"
    )


def _overdue(progress: _Progress, timeout_s: float | None) -> list[Grade]:
    """The grades of a response whose grading passed its deadline: what finished, and why not."""
    grades, running = list(progress.grades), progress.running
    if isinstance(running, tuple):  # a check the user wrote; those after it say "was not run"
        index, check = running
        grades[index] = check.error(_late(timeout_s))
        return grades
    error = f"{running} {_late(timeout_s)}"
    grades.append(Grade("check", "grading", False, None, None, "Grading finishes in time", error))
    return grades
