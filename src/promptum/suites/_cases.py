"""A data file's rows as cases built when read, and what loading a suite's cases found out.

A million-row CSV golden set is kept as the offsets of its rows (`RowCases`), one of the
sequences of the case store (`promptum.cases.CaseStore`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from promptum.cases import (
    Cases,
    CaseStore,
    Change,
    PlanItem,
    TestCase,
    grades_something,
    ungraded_fix,
)
from promptum.suites._data_files import RawCase, RowFile
from promptum.suites._row_texts import RowBuild, RowTexts, planned_rows
from promptum.values.target import HttpTarget


@dataclass(eq=False, repr=False)  # equal to and shown as a list of its cases (`CaseStore`)
class RowCases(CaseStore):
    """The cases of a CSV or JSONL file, built from their row each time they are read.

    Holds the row index (16 bytes a row), not the cases: a row was validated when the file
    was loaded, and is built again, the same way, when the run reaches it. The file is not
    kept open in between, as a suite may have more data files than a process may open: it
    is opened again for each read, or once for a pass over every row, and refused unless it
    is the file that was loaded, unchanged.
    """

    rows: RowFile
    build: RowBuild
    per_row: int
    """Cases per row: one per prompt variant."""
    changed: Callable[[Change], RowBuild] | None = None
    """A builder of the rows' cases each changed by a change every row gets alike."""
    texts: RowTexts | None = None
    """The copied rows' fingerprint texts noted while loading: a plan reads them instead."""

    def __len__(self) -> int:
        return len(self.rows) * self.per_row

    def _at(self, index: int) -> TestCase:
        row, variant = divmod(index, self.per_row)
        with self.rows.opened() as file:
            raw = self.rows.row(row, file)
        return self.build(raw)[variant]

    def __iter__(self) -> Iterator[TestCase]:
        return self._built(self.build)

    def _built(self, build: Callable[[RawCase], Sequence[TestCase]]) -> Iterator[TestCase]:
        with self.rows.opened() as file:
            for raw in self.rows.rows(file):
                yield from build(raw)

    def planned(self, change: Change | None = None) -> Iterator[PlanItem]:
        """Every case, changed by `change` (see `each_changed`), as a plan reads it."""
        if change is not None and self.changed is None:
            yield from map(change, self)
            return
        build = self.build if change is None or self.changed is None else self.changed(change)
        with self.rows.opened() as file:
            if self.texts is not None:
                yield from self.texts.planned(build, file)
            else:
                yield from planned_rows(build, self.rows.rows(file))

    def each_changed(self, change: Change) -> Iterator[TestCase]:
        """Every case changed by `change`, which changes every row's cases alike."""
        if self.changed is None:
            return map(change, self)
        return self._built(self.changed(change))


UNGRADED_SHOWN = 10
"""How many of a suite's ungraded cases `promptum validate` names."""


@dataclass(slots=True)
class CaseStats:
    """What `promptum validate` says of a suite's cases, tallied once as they are loaded."""

    checks: int = 0
    """The checks written (a suite's default checks in each case), as each response gets."""
    schemas: int = 0
    """Cases whose response is also graded on fitting its `response_model`: a check of the
    run's (``response_model`` or ``response_schema``), besides those written."""
    models: dict[str, None] = field(default_factory=dict)
    """Every model id the cases are answered or judged by, in order of first use; targets,
    resolved when the suite loaded, are not among them."""
    answering: dict[str, None] = field(default_factory=dict)
    """The models and targets that answer the cases (not the judges), in order of first use."""
    results: int = 0
    """Results a run of the cases makes: each case × its models (or targets) × its repeats."""
    most_repeats: int = 1
    tags: dict[str, None] = field(default_factory=dict)
    """Every tag of a case, in order of first use (`gate.must_pass_tags` must name one)."""
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)
    """Each case whose id an earlier case of the suite has: (key, variant, problem)."""
    scripted: int = 0
    """Cases that are scripted conversations (`turns:`)."""
    turns: int = 0
    """The user turns of the scripted conversations, together."""
    simulated: int = 0
    """Cases whose user a model plays (`simulate:`)."""
    ungraded: int = 0
    """Cases nothing grades (no check, field assertion or judge criterion): a run makes
    each an error."""
    ungraded_shown: dict[str, str] = field(default_factory=dict)
    """The first `UNGRADED_SHOWN` of them, where each is (``file:line``) to what to add."""
    unjudged: str | None = None
    """Where the first case is whose `expected_behavior` no judge grades (no `judge:`), while
    other grades do: they alone decide it, as the checks-only gate of the reference intends."""
    header_variables: dict[str, str] = field(default_factory=dict)
    """Each environment variable an HTTP target's `headers_env` reads, to the target's id:
    `validate` notes the unset ones, as it notes a model's missing key."""
    cost_bounded: dict[str, str] = field(default_factory=dict)
    """Each model a `max_cost_usd` check bounds, to where (``file:line``) it first does: a
    model without a price fails every such bound."""
    _again: tuple[TestCase | None, tuple[int, int, int, int]] = field(
        default=(None, (0, 0, 0, 0)), init=False, repr=False, compare=False
    )
    """The case `again` last counted in, and what each of its copies adds to the sums."""

    def add(self, case: TestCase, default_model: str) -> None:
        """Count one case in (once for each of its prompt variants)."""
        self.checks += len(case.grading.checks)
        self.schemas += _schema_graded(case)
        if not grades_something(case):
            self._add_ungraded(case)
        elif self.unjudged is None and case.grading.expected_behavior and not case.grading.judge:
            self.unjudged = case.source or case.key
        if case.is_conversation:
            self._add_conversation(case)
        answering = case.models or (default_model,)
        self.results += len(answering) * case.repeat
        self.most_repeats = max(self.most_repeats, case.repeat)
        for tag in case.tags:
            self.tags.setdefault(tag)
        bounded = any(check.type == "max_cost_usd" for check in case.grading.checks)
        for model in answering:
            self.answering.setdefault(model)
            if case.target is None or model != case.target.id:
                self.models.setdefault(model)
                if bounded:
                    self.cost_bounded.setdefault(model, case.source or case.key)
        if case.grading.judge is not None:
            self.models.setdefault(case.grading.judge.model)
        if isinstance(case.target, HttpTarget):
            for variable in case.target.headers_env.values():
                self.header_variables.setdefault(variable, case.target.id)

    def again(self, case: TestCase, default_model: str) -> None:
        """Count in once more a case just like one counted already (a data file's row)."""
        if case.is_conversation:
            self.add(case, default_model)
            return
        # Its models, tags and repeats are known already: only the sums grow, by the same
        # figures for each of a data file's rows (a million may be copied from one case).
        counted, figures = self._again
        if case is not counted:
            answers = (len(case.models) or 1) * case.repeat
            # An ungraded copy is named once, by the row it was copied from.
            unnamed = int(not grades_something(case))
            figures = (len(case.grading.checks), _schema_graded(case), answers, unnamed)
            self._again = (case, figures)
        checks, schemas, results, ungraded = figures
        self.checks += checks
        self.schemas += schemas
        self.results += results
        self.ungraded += ungraded

    def _add_ungraded(self, case: TestCase) -> None:
        self.ungraded += 1
        if len(self.ungraded_shown) < UNGRADED_SHOWN:
            self.ungraded_shown.setdefault(case.source or case.key, ungraded_fix(case))

    def _add_conversation(self, case: TestCase) -> None:
        # Each turn is graded as one request is: by the case's checks (its suite's default
        # checks) and its schema, besides its own. A simulated user's turns are not known
        # before the run: counted as if it used every one (its stop checks grade nothing).
        turns = len(case.turns) or (case.simulate.max_turns if case.simulate else 1)
        self.checks += len(case.grading.checks) * (turns - 1)
        self.checks += sum(len(turn.checks) for turn in case.turns)
        self.schemas += turns * (case.response_schema is not None)
        if case.grading.conversation is not None:
            self.checks += len(case.grading.conversation.checks)
        if case.turns:
            self.scripted += 1
            self.turns += len(case.turns)
        if case.simulate is not None:
            self.simulated += 1
            self.models.setdefault(case.simulate.model)


def _schema_graded(case: TestCase) -> int:
    """1 when a run grades the case's response on fitting its schema, as a check."""
    # A scripted conversation's are counted by its turns (`_add_conversation`).
    return int(case.response_schema is not None and not case.is_conversation)


class SuiteCases(Cases):
    """A loaded suite's cases, with what loading them found out (`stats`)."""

    def __init__(self, parts: Iterable[Sequence[TestCase]], stats: CaseStats) -> None:
        super().__init__(parts)
        self.stats = stats
