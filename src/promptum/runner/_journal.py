"""The resume journal: every finished result of a run, one JSON line each, as it arrives.

Each run writes its own file, ``<fingerprint>-<run id>.jsonl``, the fingerprint hashing the
run's plan: `--resume` picks the most recently written journal of the same plan (an
interrupted run; a complete run removes its own), runs only the rest and appends them to
it, reading the earlier results from the file as it needs them. Another run of the same
cases, finished in the meantime, leaves it alone.

A conversation's finished turns are journalled too, as lines of their own
(``{"turn": {"unit": [...], "number": n, "calls": [...]}}``) holding every call the turn
made: a resume replays them instead of asking again. Versions before them skip such lines.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, fields
from datetime import datetime
from json.encoder import encode_basestring_ascii
from operator import attrgetter, is_
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from promptum._flushing import TurnFlush
from promptum.checks import CheckDefinition, case_transform, expressions_of
from promptum.results import CaseResult, Message, RunResult
from promptum.runner._case import (
    ConversationGrading,
    Criterion,
    GenerationParams,
    JudgeConfig,
    Simulation,
    TestCase,
    Turn,
)
from promptum.runner._copied import CopiedRow
from promptum.runner._copied_run import CopiedRun, messages_text
from promptum.runner._turn_lines import TURN_LINE, JournalKey, TurnCall, turn_calls, turn_line
from promptum.sinks import result_json

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


_REMEMBERED_CHECKS = 256
"""Checks whose dump a `PlanDigest` keeps: a suite's `defaults` checks are objects shared
by all its cases, while checks of each row's own are not worth keeping."""


def _params(params: GenerationParams) -> dict[str, Any]:
    """`asdict(params)` without copying: the usual params have no `extra` to copy."""
    if params.extra:
        return asdict(params)
    return {field.name: getattr(params, field.name) for field in fields(params)}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _messages(case: TestCase) -> list[dict[str, Any]]:
    return [message.model_dump() for message in case.messages]


def _messages_json(case: TestCase) -> str:
    """`_json(_messages(case))`, written directly for plain messages (a role and a text)."""
    texts = []
    for message in case.messages:
        # A plain message dumps as {"content", "role"} (see `Message`'s serializer): the
        # same text as json.dumps writes, without dumping the model (most of a row's cost).
        if type(message) is not Message or message.tool_calls is not None:
            return _json(_messages(case))
        if message.tool_call_id is not None or type(message.content) is not str:
            return _json(_messages(case))
        texts.append((message.role, message.content))
    return messages_text(texts)


_MARK = "\x00promptum-plan-digest:"
"""Starts the stand-ins of a case's own keys in a `PlanDigest` frame: no case writes it."""
_FRAMED = (
    *("checks", "attack_target", "suite", "variant", "models", "params", "validator"),
    *("response_schema", "expected", "expected_behavior", "context", "judge", "repeat"),
    *("threshold", "transform"),
)
"""The fields of a case that its fingerprint text reads, besides its id, messages and vars."""
_framed = attrgetter(*_FRAMED)


_LATER_KEYS = ("metric", "weight", "transform")
"""Keys of a check (and `metric` of a criterion) added after fingerprints were first taken:
hashed only when set, so a case without them keeps the fingerprint it had before."""


def _without_unset_later_keys(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None or k not in _LATER_KEYS}


def _judge(config: JudgeConfig | None) -> dict[str, Any] | None:
    if config is None:
        return None
    data = asdict(config)
    data["criteria"] = [_without_unset_later_keys(c) for c in data["criteria"]]
    return data


def _checks(checks: tuple[CheckDefinition, ...]) -> list[dict[str, Any]]:
    return [_without_unset_later_keys(check.model_dump()) for check in checks]


def _criteria(criteria: tuple[Criterion, ...]) -> list[dict[str, Any]]:
    return [_without_unset_later_keys(asdict(criterion)) for criterion in criteria]


def _turn(turn: Turn) -> dict[str, Any]:
    # Not `source`: moving a turn within its file does not change what it asks.
    return {
        "query": turn.query,
        "reads_turns": turn.reads_turns,
        "checks": _checks(turn.checks),
        "expected": turn.expected,
        "attack_target": turn.attack_target,
        "criteria": _criteria(turn.criteria),
    }


def _simulation(simulation: Simulation) -> dict[str, Any]:
    data = {f.name: getattr(simulation, f.name) for f in fields(simulation)}
    data["stop"] = _checks(simulation.stop)
    return data


def _conversation(grading: ConversationGrading) -> dict[str, Any]:
    return {"checks": _checks(grading.checks), "criteria": _criteria(grading.criteria)}


def _conversation_keys(case: TestCase) -> dict[str, Any]:
    """A conversation's turns, simulated user and grading: only those set.

    So the fingerprint of every other case stays what it was.
    """
    keys: dict[str, Any] = {}
    if case.turns:
        keys["turns"] = [_turn(turn) for turn in case.turns]
    if case.simulate is not None:
        keys["simulate"] = _simulation(case.simulate)
    if case.conversation is not None:
        keys["conversation"] = _conversation(case.conversation)
    return keys


class PlanDigest:
    """A run's fingerprint (the resume journal's key), fed one case at a time.

    A short hash of everything that decides the run's results: each case as JSON with
    sorted keys. It must not change between versions, as a resume finds the journal of a
    run interrupted before an upgrade by it.
    """

    def __init__(self) -> None:
        self._digest = hashlib.sha256()
        self._checks: dict[int, tuple[CheckDefinition, str]] = {}
        """Recent checks by identity (each kept alive, so its id is not reused), as JSON."""
        self._last: tuple[TestCase, tuple[str, ...]] | None = None
        """The last case framed, and its text around its own keys (see `_frame`)."""
        self._reads_vars: dict[tuple[int, str | None], tuple[object, bool]] = {}
        """Whether a case's checks and transform read `vars`, by the checks' identity: the
        rows of a data file share theirs (kept alive, as `_checks` are)."""

    def add(self, case: TestCase) -> None:
        """Hash one case in."""
        # The JSON of the whole case, written in three parts so that each check is encoded
        # once, not once per case: `attack_target` and `checks` are the first keys in order.
        frame = self._frame(case)
        if frame is not None:  # a row of the same file as the last case: its own keys only
            case_id = case.id
            # What json.dumps writes for a string, without its encoder's set-up per call.
            own_id = encode_basestring_ascii(case_id) if type(case_id) is str else _json(case_id)
            parts = [frame[0], own_id, frame[1], _messages_json(case), frame[2]]
            if len(frame) > 3:
                parts += [_json(case.vars), frame[3]]
            self._digest.update("".join(parts).encode())
            return
        self._digest.update(self._text(case).encode())

    def add_copy(self, row: CopiedRow) -> None:
        """Hash in the case `row` stands for, as `add` would, without making it."""
        frame = self._frame(row.base)
        if frame is None:  # a conversation, or text holding the digest's mark
            self.add(row.case())
            return
        # As `_messages_json` writes plain messages.
        messages = messages_text(row.texts)
        parts = [frame[0], encode_basestring_ascii(row.id), frame[1], messages, frame[2]]
        if len(frame) > 3:
            parts += [_json(row.vars), frame[3]]
        self._digest.update("".join(parts).encode())

    def add_run(self, run: CopiedRun) -> None:
        """Hash in each row of `run`, as `add_copy` would, from their texts."""
        frame = self._frame(run.base)
        if frame is None or len(frame) > 3:  # vars hashed too, or no frame: the rows say
            for item in run.rows():
                if isinstance(item, CopiedRow):
                    self.add_copy(item)
                else:
                    self.add(item)
            return
        # Each line is a row's id, a tab and its messages (`own_text`): its frame around
        # them is put in place of the tab and the newline, for the whole run at once.
        before, between, after = frame
        text = run.text[:-1].replace("\t", between).replace("\n", after + before)
        self._digest.update(before.encode())
        self._digest.update(text.encode())
        self._digest.update(after.encode())

    def _text(self, case: TestCase) -> str:
        checks = ", ".join(self._check(check) for check in case.checks)
        return (
            f'{{"attack_target": {_json(case.attack_target)}, "checks": [{checks}], '
            + _json(self._key(case))[1:]
        )

    def _frame(self, case: TestCase) -> tuple[str, ...] | None:
        """The text of `case` around its id, messages and vars, when the last case's fits.

        The rows of a data file share every other field (the same objects): their text is
        the last case's but for those, each encoded alone (the JSON of a value is the same
        text wherever the value sits), so the text stays exactly what `_text` writes.
        """
        if case.is_conversation:
            return None
        last = self._last
        if last is not None and last[0] is case:  # the prototype of a data file's rows
            return last[1]
        if last is not None and all(map(is_, _framed(case), _framed(last[0]))):
            return last[1]
        key = self._key(case)
        marks = [name for name in ("id", "messages", "vars") if name in key]
        for name in marks:
            key[name] = _MARK + name
        checks = ", ".join(self._check(check) for check in case.checks)
        text = f'{{"attack_target": {_json(case.attack_target)}, "checks": [{checks}], '
        text += _json(key)[1:]
        parts: list[str] = []
        for name in marks:  # in the order of the text's sorted keys
            before, *after = text.split(json.dumps(_MARK + name))
            if len(after) != 1:  # the mark is written elsewhere too: no frame
                self._last = None
                return None
            parts.append(before)
            text = after[0]
        frame = (*parts, text)
        self._last = (case, frame)
        return frame

    def hexdigest(self) -> str:
        """The fingerprint of the cases added so far."""
        return self._digest.hexdigest()[:16]

    def _check(self, check: CheckDefinition) -> str:
        remembered = self._checks.get(id(check))
        if remembered is not None:
            return remembered[1]
        if len(self._checks) >= _REMEMBERED_CHECKS:
            self._checks.clear()
        text = _json(_without_unset_later_keys(check.model_dump()))
        self._checks[id(check)] = (check, text)
        return text

    def _key(self, case: TestCase) -> dict[str, Any]:
        """The rest of the case: every key after `checks`."""
        return {
            "id": case.id,
            "suite": case.suite,
            "variant": case.variant,
            "messages": _messages(case),
            "models": case.models,
            "params": _params(case.params),
            "validator": None if case.validator is None else case.validator.describe(),
            "schema": case.response_schema,
            "expected": case.expected,
            "expected_behavior": case.expected_behavior,
            "context": case.context,
            "judge": _judge(case.judge),
            "repeat": case.repeat,
            # Only when set: a case without them keeps the fingerprint it had before.
            **({} if case.threshold is None else {"threshold": case.threshold}),
            **({} if case.transform is None else {"transform": case.transform}),
            # Only when an expression reads them: other cases' vars are in their messages.
            **({"vars": case.vars} if self._reads(case) else {}),
            **(_conversation_keys(case) if case.is_conversation else {}),
        }

    def _reads(self, case: TestCase) -> bool:
        key = (id(case.checks), case.transform)
        remembered = self._reads_vars.get(key)
        if remembered is not None:
            return remembered[1]
        if len(self._reads_vars) >= _REMEMBERED_CHECKS:
            self._reads_vars.clear()
        reads = _expressions_read_vars(case)
        self._reads_vars[key] = (case.checks, reads)
        return reads


def _expressions_read_vars(case: TestCase) -> bool:
    """Whether an `expr` check or a transform of `case` reads `vars` when it grades."""
    expressions = [e for check in case.checks for _, e in expressions_of(check.compiled)]
    if case.transform is not None:
        expressions.append(case_transform(case.transform))
    return any("vars" in expression.names_read for expression in expressions)


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
                if line.startswith(TURN_LINE):  # a conversation's turn, not a result
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
