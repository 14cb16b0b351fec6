"""The resume journal: every finished result of a run, one JSON line each, as it arrives.

Each run writes its own file, ``<fingerprint>-<run id>.jsonl``, the fingerprint hashing the
run's plan: `--resume` picks the most recently written journal of the same plan (an
interrupted run; a complete run removes its own), runs only the rest and appends them to
it, reading the earlier results from the file as it needs them. Another run of the same
cases, finished in the meantime, leaves it alone.

A conversation's finished turns are journalled too, as lines of their own
(``{"turn": {"unit": [...], "number": n, "calls": [...]}}``) holding every call the turn
made: a resume replays them instead of asking again. Versions before them skip such lines.
So does a batch the run submitted (``{"batch": {"model", "id", "requests"}}``, `run --batch`):
a resume polls it again instead of submitting its calls a second time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from operator import attrgetter, is_
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from promptum.cases import (
    RUN_KEYS,
    CopiedRow,
    CopiedRun,
    Grading,
    HashedField,
    TestCase,
    When,
    as_json,
    role_table,
)
from promptum.checks import case_transform, expressions_of
from promptum.foundations.flushing import TurnFlush
from promptum.runner._turn_lines import TURN_LINE, JournalKey, TurnCall, turn_calls, turn_line
from promptum.sinks import result_json
from promptum.values.run_result import CaseResult, RunResult

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_BATCH_LINE = '{"batch"'


_REMEMBERED_CHECKS = 256
"""Checks whose dump a `PlanDigest` keeps: a suite's `defaults` checks are objects shared
by all its cases, while checks of each row's own are not worth keeping."""

_MARK = "\x00promptum-plan-digest:"
"""Starts the stand-ins of a case's own keys in a `PlanDigest` frame: no case writes it."""


def _tuple_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    if len(names) > 1:
        return attrgetter(*names)
    return lambda case: tuple(getattr(case, name) for name in names)


def _holders(hashed: tuple[HashedField, ...]) -> list[str]:
    """The case's fields holding the hashed fields a data file's rows share, once each.

    A group (`grading`) is one of them: rows sharing it share every field it holds.
    """
    return list(dict.fromkeys(item.holder for item in hashed if not item.per_row))


@dataclass(frozen=True, slots=True)
class _Layout:
    """How a `PlanDigest` writes the cases of one class, made from its fields' roles."""

    hashed: tuple[HashedField, ...]
    """Every field hashed, in the order of their keys."""
    shared: Callable[[Any], tuple[Any, ...]]
    """The fields holding what the rows of a data file share (every hashed one not `PER_ROW`)."""


_LAYOUTS: dict[type, _Layout] = {}


def _layout(cls: type) -> _Layout:
    layout = _LAYOUTS.get(cls)
    if layout is None:
        hashed = role_table(cls).hashed
        layout = _LAYOUTS[cls] = _Layout(hashed, _tuple_getter(_holders(hashed)))
    return layout


def _mark_text(item: HashedField, value: Any) -> str:
    """The JSON text of a row's own `value` of `item`, in its frame."""
    hashed = item.hashed
    if hashed.text is not None:
        return hashed.text(value)
    return as_json(value if hashed.encode is None else hashed.encode(value))


_Frame = tuple[tuple[str, ...], tuple[HashedField, ...]]
"""A case's text around its own keys (one more part than keys), and those keys."""


class PlanDigest:
    """A run's fingerprint (the resume journal's key), fed one case at a time.

    A short hash of everything that decides the run's results: each case as JSON with
    sorted keys, of the fields its roles say are hashed (`promptum.cases._roles`). It must
    not change between versions, as a resume finds the journal of a run interrupted before
    an upgrade by it.
    """

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._items: dict[int, tuple[object, Callable[[Any], Any], str]] = {}
        """Recent checks by identity (each kept alive, so its id is not reused), as JSON."""
        self._last: tuple[TestCase, _Frame | None] | None = None
        """The last case added, and its text around its own keys once a frame is made
        (see `_frame`)."""
        self._reads: dict[tuple[int, str | None, str], tuple[object, bool]] = {}
        """Whether a case's checks and transform read a key, by the checks' identity: the
        rows of a data file share theirs (kept alive, as checks are)."""

    def add(self, case: TestCase) -> None:
        """Hash one case in."""
        frame = self._frame(case)
        if frame is not None:  # a row of the same file as the last case: its own keys only
            texts, marks = frame
            parts = [texts[0]]
            for mark, after in zip(marks, texts[1:], strict=True):
                parts += [_mark_text(mark, mark.get(case)), after]
            self._digest.update("".join(parts).encode())
            return
        self._digest.update(self._text(case, _layout(type(case))).encode())

    def add_copy(self, row: CopiedRow) -> None:
        """Hash in the case `row` stands for, as `add` would, without making it."""
        frame = self._frame(row.base, prototype=True)
        if frame is None:  # a conversation, or text holding the digest's mark
            self.add(row.case())
            return
        texts, marks = frame
        parts = [texts[0]]
        for mark, after in zip(marks, texts[1:], strict=True):
            parts += [row.hashed_text(mark.name), after]
        self._digest.update("".join(parts).encode())

    def add_run(self, run: CopiedRun) -> None:
        """Hash in each row of `run`, as `add_copy` would, from their texts."""
        frame = self._frame(run.base, prototype=True)
        if frame is None or [mark.name for mark in frame[1]] != list(RUN_KEYS):
            for item in run.rows():  # vars hashed too, or no frame: the rows say
                if isinstance(item, CopiedRow):
                    self.add_copy(item)
                else:
                    self.add(item)
            return
        # Each line is a row's id, a tab and its messages (`own_text`): its frame around
        # them is put in place of the tab and the newline, for the whole run at once.
        before, between, after = frame[0]
        text = run.text[:-1].replace("\t", between).replace("\n", after + before)
        self._digest.update(before.encode())
        self._digest.update(text.encode())
        self._digest.update(after.encode())

    def _text(
        self, case: TestCase, layout: _Layout, marked: list[HashedField] | None = None
    ) -> str:
        """The JSON of `case`, keys sorted; with `marked`, its own keys as marks (`_frame`).

        The marked fields are appended to `marked`, in order.
        """
        # Written in parts so that each check is encoded once, not once per case: a field
        # hashed `each` is written apart, the fields around it as one object each.
        pieces: list[str] = []
        group: dict[str, Any] = {}
        for item in layout.hashed:
            value = item.get(case)
            if item.hashed.when is not When.ALWAYS and not self._included(case, item, value):
                continue
            hashed = item.hashed
            if marked is not None and item.per_row:
                group[item.key] = _MARK + item.name
                marked.append(item)
            elif hashed.each is not None:
                if group:
                    pieces.append(as_json(group)[1:-1])
                    group = {}
                pieces.append(self._each(item.key, hashed.each, value))
            else:
                group[item.key] = value if hashed.encode is None else hashed.encode(value)
        if group:
            pieces.append(as_json(group)[1:-1])
        return "{" + ", ".join(pieces) + "}"

    def _included(self, case: TestCase, item: HashedField, value: Any) -> bool:
        """Whether a field hashed only at times (`When`) is hashed for `case`."""
        when = item.hashed.when
        if when is When.SET:
            return not item.is_default(value)
        if when is When.READ:
            return self._read(case, item.key)
        return case.is_conversation and not item.is_default(value)

    def _frame(self, case: TestCase, prototype: bool = False) -> _Frame | None:
        """The text of `case` around its own keys (`PER_ROW`), when the last case's fits.

        The rows of a data file share every other field (the same objects): their text is
        the last case's but for those, each encoded alone (the JSON of a value is the same
        text wherever the value sits), so the text stays exactly what `_text` writes. A
        frame is made only once a second case shares the fields: rows whose checks are
        their own (a column's) never pay for one. A `prototype` (of copied rows) is framed
        at once: every row copied from it shares its fields.
        """
        if case.is_conversation:
            return None
        last = self._last
        layout = _layout(type(case))
        shares = last is not None and (
            last[0] is case  # the prototype of a data file's rows
            or (
                type(last[0]) is type(case)
                and all(map(is_, layout.shared(case), layout.shared(last[0])))
            )
        )
        if not shares and not prototype:
            self._last = (case, None)
            return None
        if last is None or last[1] is None or not shares:
            frame = self._framed(case, layout)
            self._last = (case, frame) if frame is not None else None
            return frame
        return last[1]

    def _framed(self, case: TestCase, layout: _Layout) -> _Frame | None:
        """`case`'s text cut around its own keys; None if a key's mark is written elsewhere."""
        marks: list[HashedField] = []
        text = self._text(case, layout, marks)
        parts: list[str] = []
        for item in marks:  # in the order of the text's sorted keys
            before, *after = text.split(json.dumps(_MARK + item.name))
            if len(after) != 1:  # the mark is written elsewhere too: no frame
                return None
            parts.append(before)
            text = after[0]
        return (*parts, text), tuple(marks)

    def hexdigest(self) -> str:
        """The fingerprint of the cases added so far."""
        return self._digest.hexdigest()[:16]

    def _each(self, key: str, each: Callable[[Any], Any], value: Iterable[object]) -> str:
        """A field hashed item by item (the checks), as its JSON key and list."""
        items = ", ".join([self._item(each, element) for element in value])
        return f"{as_json(key)}: [{items}]"

    def _item(self, each: Callable[[Any], Any], element: object) -> str:
        remembered = self._items.get(id(element))
        if remembered is not None and remembered[1] is each:
            return remembered[2]
        if len(self._items) >= _REMEMBERED_CHECKS:
            self._items.clear()
        text = as_json(each(element))
        self._items[id(element)] = (element, each, text)
        return text

    def _read(self, case: TestCase, name: str) -> bool:
        grading = case.grading
        key = (id(grading.checks), grading.transform, name)
        remembered = self._reads.get(key)
        if remembered is not None:
            return remembered[1]
        if len(self._reads) >= _REMEMBERED_CHECKS:
            self._reads.clear()
        reads = _expressions_read(grading, name)
        self._reads[key] = (grading.checks, reads)
        return reads


def _expressions_read(grading: Grading, name: str) -> bool:
    """Whether an `expr` check or the transform of a case's grading reads `name`."""
    expressions = [e for check in grading.checks for _, e in expressions_of(check.compiled)]
    if grading.transform is not None:
        expressions.append(case_transform(grading.transform))
    return any(name in expression.names_read for expression in expressions)


def plan_fingerprint(cases: Iterable[TestCase]) -> str:
    """A short hash of everything that decides a run's results."""
    digest = PlanDigest()
    for case in cases:
        digest.add(case)
    return digest.hexdigest()


def _key_of(result: CaseResult) -> JournalKey:
    # The runner's `result_key`, which this module cannot import: the runner imports it.
    return (result.key, result.variant or "", result.model, result.repeat)


def _header(path: Path) -> tuple[str, datetime] | None:
    """The run id and start time a journal begins with; None if it has none readable."""
    try:
        with path.open(encoding="utf-8") as lines:
            header = json.loads(lines.readline())
        run_id, started_at = header["run_id"], datetime.fromisoformat(header["started_at"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    return (run_id, started_at) if isinstance(run_id, str) else None


class EarlierResults:
    """The results a journal holds, read from the file each time they are iterated.

    A resumed run goes over them twice (their keys, then each result) instead of holding
    them all (~5 KB each).
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[CaseResult]:
        with self.path.open(encoding="utf-8", errors="replace") as lines:
            next(lines, None)  # the header
            for line in lines:
                if line.startswith((TURN_LINE, _BATCH_LINE)):  # a turn or a batch, not a result
                    continue
                try:
                    yield CaseResult.model_validate_json(line)
                except ValidationError:
                    continue  # a line cut short when the process was killed mid-write


def _ends_a_line(path: Path) -> bool:
    """Whether the file is empty or ends with a newline (not a line cut short)."""
    with path.open("rb") as file:
        if file.seek(0, 2) == 0:
            return True
        file.seek(-1, 2)
        return file.read(1) == b"\n"


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class Journal:
    """A ResultSink appending each result to ``<folder>/<fingerprint>-<run id>.jsonl``."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        self.folder = folder
        self.fingerprint = fingerprint
        self.path: Path | None = None
        """This run's journal, known once the run starts."""
        self._resumed_from: Path | None = None
        self._out: TurnFlush | None = None
        """The open journal file, flushed once per turn of the event loop."""
        self._held: set[JournalKey] = set()
        """Keys of the results the resumed journal holds and the runner has not sent again."""
        self._turns: dict[JournalKey, list[TurnCall]] = {}
        """The calls of the turns of conversations the resumed run left unfinished."""

    def candidates(self) -> list[Path]:
        """The journals of this plan, most recently written first."""
        # `<fingerprint>.jsonl` is the name older versions gave every run of the plan.
        paths = [*self.folder.glob(f"{self.fingerprint}-*.jsonl")]
        paths += [p for p in [self.folder / f"{self.fingerprint}.jsonl"] if p.is_file()]
        return sorted(paths, key=_modified, reverse=True)

    def load(self) -> tuple[str, datetime, EarlierResults] | None:
        """The run id, start time and finished results of the latest interrupted run, if any."""
        for path in self.candidates():
            header = _header(path)
            if header is not None:
                self._resumed_from = path
                return (*header, EarlierResults(path))
        return None

    def start(self, run: RunResult) -> None:
        """Open the journal for `run`: a header line first, or after the results it has."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / f"{self.fingerprint}-{_UNSAFE.sub('_', run.run_id)}.jsonl"
        if self.path == self._resumed_from:
            self._continue(self.path)
            return
        self._out = TurnFlush(self.path.open("w", encoding="utf-8"))
        # Only what a resume needs: nothing from the suite or the config, so no secret.
        header = {"run_id": run.run_id, "started_at": run.started_at.isoformat()}
        self._out.file.write(json.dumps(header) + "\n")
        self._out.file.flush()

    def _continue(self, path: Path) -> None:
        """Append to the journal being resumed, not writing again the results it holds."""
        self._held = {_key_of(result) for result in EarlierResults(path)}
        self._turns = turn_calls(path, self._held)
        complete = _ends_a_line(path)
        self._out = TurnFlush(path.open("a", encoding="utf-8"))
        if not complete:  # a line cut short by a kill: the next one starts on its own
            self._out.file.write("\n")
            self._out.file.flush()

    def add(self, result: CaseResult) -> None:
        """Append one result, flushed with the others of this turn of the loop (`TurnFlush`)."""
        if self._out is None:
            return
        if self._held:
            key = _key_of(result)
            if key in self._held:  # an earlier result, sent again on resuming
                self._held.discard(key)
                return
        self._out.write(result_json(result) + "\n")

    def earlier_calls(self, unit: JournalKey) -> list[TurnCall]:
        """The calls of a conversation's turns that the resumed run finished, in order."""
        return self._turns.pop(unit, [])

    def add_turn(self, unit: JournalKey, number: int, calls: list[TurnCall]) -> None:
        """Append one finished turn of a conversation: every call it made."""
        if self._out is not None:
            self._out.write(turn_line(unit, number, calls) + "\n")

    def add_batch(self, batch: Mapping[str, Any]) -> None:
        """Append a batch the run submitted (`BatchRecord.as_json`), on disk at once."""
        if self._out is not None:  # flushed now: a kill then cannot lose it, nor resubmit
            self._out.file.write(json.dumps({"batch": batch}) + "\n")
            self._out.file.flush()

    def earlier_batches(self) -> list[object]:
        """The batches the resumed run submitted, as `add_batch` wrote them (none if new)."""
        if self._resumed_from is None:
            return []
        batches = []
        with self._resumed_from.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith(_BATCH_LINE):
                    with contextlib.suppress(ValueError, KeyError, TypeError):  # cut short
                        batches.append(json.loads(line)["batch"])
        return batches

    def finish(self, run: RunResult) -> None:
        """Close the journal; a complete run has nothing to resume, so its journal goes."""
        if self._out is not None:
            out, self._out = self._out, None
            out.file.close()
            out.raise_failure()
        if self._resumed_from is not None and self._resumed_from != self.path:
            # An older version's journal that this run took over: its results are in ours.
            self._resumed_from.unlink(missing_ok=True)
        if run.complete and self.path is not None:
            self.path.unlink(missing_ok=True)
