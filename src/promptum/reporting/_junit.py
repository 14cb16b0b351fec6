"""JUnit XML: one testsuite per model, one testcase per case and repeat.

CI systems read this to gate a build, so a result's failure type follows the precedence in
`_outcome` and every check outcome, passed ones included, is written to ``system-out``.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, TextIO

from pydantic_core import from_json

from promptum.gate import decide
from promptum.rates import CaseRate
from promptum.reporting._conversation import turn_lines
from promptum.reporting._metrics import junit_properties, label
from promptum.reporting._outcome import outcome
from promptum.reporting._source import ReportSource, rendered, spool
from promptum.reporting._stored import Memo, split
from promptum.reporting._text import visible
from promptum.reporting._transformed import transformed_texts
from promptum.values.asr import AttackRates
from promptum.values.case_result import TURN, namespaced
from promptum.values.completion import Completion
from promptum.values.grade import Grade, samples_note
from promptum.values.metrics import score_line
from promptum.values.run_result import CaseResult, RunResult


def _seconds(cached: bool, latency_ms: float | None) -> float:
    # A cached answer took no time in this run; its original latency stays in system-out.
    return 0.0 if cached else (latency_ms or 0.0) / 1000


def _grade_line(grade: Grade) -> str:
    """One grade in system-out: ``check PASS contains (Contains 'Paris')``."""
    kind = "check" if grade.kind == "validator" else grade.kind
    if grade.error is not None:
        return f"{kind} ERROR {grade.name} ({grade.description}): {grade.error}"
    verdict = "PASS" if grade.passed else "FAIL"
    if grade.kind == "assertion":
        return f"assertion {verdict} [{grade.details.get('op')}] {grade.reason}"
    score = "" if grade.score is None else f" score {grade.score:g}"
    note = samples_note(grade.details) if grade.kind == "judge" else ""
    if note:
        score = f" mean score {grade.score:.3g} ({note})"
    reason = f": {grade.reason}" if grade.reason else ""
    return f"{kind} {verdict} {grade.name} ({grade.description}){score}{reason}"


def _turn(result: CaseResult, grade: Grade) -> str:
    """Before a conversation's grade: ``turn N `` or ``conversation ``; nothing otherwise."""
    if result.turns is None:
        return ""
    number = grade.details.get(TURN)
    return f"turn {number} " if number else "conversation "


@dataclass(frozen=True, slots=True)
class _Graded:
    """What a testcase shows of a result's status and grades: alike for results graded alike."""

    verdict: str
    """The failure or error element, the testcase's first child; "" for a pass."""
    kind: str | None
    """The verdict's kind (``failure``, ``error``); None for a pass."""
    lines: tuple[str, ...]
    """system-out's first lines: the status, the weighted score, a line per grade."""
    transformed: tuple[str, ...]
    """system-out's lines after a response: each text a transform made of it."""


def _graded(result: CaseResult) -> _Graded:
    verdict = outcome(result)
    element = ""
    if verdict is not None:
        details = visible("\n".join(verdict.details))
        named = [("type", verdict.type), ("message", visible(verdict.message))]
        element = _CHILD + _element(verdict.kind, named, details)
    lines = [f"status: {result.status}"]
    weighed = score_line(result)
    if weighed is not None:
        lines.append(weighed)
    lines += [_turn(result, grade) + _grade_line(grade) + label(grade) for grade in result.grades]
    transformed = [line for text in transformed_texts(result) for line in (_TRANSFORMED, text)]
    kind = None if verdict is None else verdict.kind
    return _Graded(element, kind, tuple(lines), tuple(transformed))


_TRANSFORMED = "response after transform:"


def _system_out(result: CaseResult, graded: _Graded) -> list[str]:
    lines = list(graded.lines)
    completion = result.completion
    if completion.cached:
        lines.append("cached: true")
    if result.turns is not None:
        lines += ["transcript:", *turn_lines(result, limit=None)]
    elif completion.error is None:
        lines += ["response:", completion.text, *graded.transformed]
    if completion.tool_calls:
        lines += ["tool calls:", *(f"  {call.describe()}" for call in completion.tool_calls)]
    return lines


_TEXT_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
"""What ElementTree escapes in an element's text, in its order (``&`` first)."""
_ATTRIBUTE_ESCAPES = (
    *_TEXT_ESCAPES,
    ('"', "&quot;"),
    ("\r", "&#13;"),
    ("\n", "&#10;"),
    ("\t", "&#09;"),
)
"""What it escapes in an attribute's value: the text's, then quotes and white space."""


def _attribute(text: str) -> str:
    """An attribute's value escaped as ElementTree escapes it."""
    return _escaped(text, _ATTRIBUTE_ESCAPES)


def _text(text: str) -> str:
    """An element's text escaped as ElementTree escapes it."""
    return _escaped(text, _TEXT_ESCAPES)


def _escaped(text: str, escapes: tuple[tuple[str, str], ...]) -> str:
    for character, entity in escapes:
        if character in text:
            text = text.replace(character, entity)
    return text


def _opened(tag: str, attributes: list[tuple[str, str]]) -> str:
    """An element's start tag without its ``>``, as `ET.tostring` writes it."""
    return f"<{tag}" + "".join(f' {name}="{_attribute(value)}"' for name, value in attributes)


def _element(tag: str, attributes: list[tuple[str, str]], text: str) -> str:
    """An element without children, as `ET.tostring` writes it."""
    head = _opened(tag, attributes)
    return f"{head}>{_text(text)}</{tag}>" if text else f"{head} />"


_CHILD = "\n      "
"""Before each child of a testcase, as `ET.indent` puts it two levels deep."""


def _head(name: str, column: str, seconds: float, source: str | None) -> str:
    """A testcase's start tag, as `ET.tostring` writes it; `name`: its case's, with the repeat.

    Written as text: building and serializing an element tree per result cost most of the
    report's time.
    """
    return (
        f'<testcase name="{_attribute(visible(name))}" classname="{_value(column)}" '
        f'time="{seconds:.3f}"{_source(source) if source else ""}>'
    )


@functools.lru_cache(maxsize=1024)
def _value(text: str) -> str:
    """An attribute's value made of `text`; remembered, as a column's is on every testcase."""
    return _attribute(visible(text))


@functools.lru_cache(maxsize=1024)
def _source(source: str) -> str:
    """The attributes saying where a case is written: ``file`` and, if known, ``line``."""
    # file/line are read by GitHub annotators (e.g. action-junit-report) to point at the case.
    file, _, line = source.rpartition(":")
    if file and line.isdigit():
        return f' file="{_value(file)}" line="{line}"'
    return f' file="{_value(source)}"'


def _name(key: str, repeat: int, repeated: bool) -> str:
    return f"{key} [repeat {repeat}]" if repeated else key


def _testcase(head: str, graded: _Graded, system_out: list[str]) -> str:
    """The testcase as `ET.tostring` writes it indented two levels deep."""
    out = _text(visible("\n".join(system_out)))  # never empty: the status comes first
    return f"{head}{graded.verdict}{_CHILD}<system-out>{out}</system-out>\n    </testcase>"


_Case = tuple[str, str, str | None, float]
"""A testcase as its testsuite takes it: its column, its text, its verdict's kind (None: a
pass) and its seconds."""


def _case(result: CaseResult, repeated: bool) -> _Case:
    """`result`'s testcase."""
    graded = _graded(result)
    seconds = _seconds(result.completion.cached, result.completion.latency_ms)
    head = _head(_name(result.key, result.repeat, repeated), result.column, seconds, result.source)
    return result.column, _testcase(head, graded, _system_out(result, graded)), graded.kind, seconds


class _StoredCases:
    """Testcases from results' stored JSON: grades' parts made once per grades and status.

    A result is read from its JSON as `split` cuts it when it is a single answer without an
    error, a threshold or tool calls: its testcase then depends on nothing else of it than
    what is read here. The grades' part is made once per grades and status, from those
    alone; a column's name from its first result, validated; any other result is validated.
    """

    def __init__(self, repeated: bool) -> None:
        self._repeated = repeated
        self._graded: Memo[_Graded] = Memo()
        self._columns: Memo[str] = Memo()

    def case(self, text: str) -> _Case:
        """The testcase of the result `text` holds."""
        try:
            case = self._read(text)
        except (KeyError, TypeError, AttributeError, ValueError):  # not this promptum's shape
            case = None
        return _case(CaseResult.model_validate_json(text), self._repeated) if case is None else case

    def _read(self, text: str) -> _Case | None:
        parts = split(text)
        if parts is None:
            return None
        grades, data = parts
        completion = data["completion"]
        if not _single(data, completion):
            return None
        status = data["status"]
        graded = self._graded.made(
            (grades, status), lambda: _graded(_single_graded(status, grades))
        )
        where = (data["model"], data["variant"])
        column = self._columns.made(where, lambda: CaseResult.model_validate_json(text).column)
        seconds = _seconds(completion["cached"], completion["latency_ms"])
        name = _name(namespaced(data["suite"], data["case_id"]), data["repeat"], self._repeated)
        head = _head(name, column, seconds, data["source"])
        lines = list(graded.lines)
        if completion["cached"]:
            lines.append("cached: true")
        lines += ["response:", completion["text"], *graded.transformed]
        return column, _testcase(head, graded, lines), graded.kind, seconds


def _single_graded(status: str, grades: str) -> CaseResult:
    """What a single answer's testcase reads of its result: its status and grades.

    Its grades are this promptum's own JSON, made into grades without validating the rest.
    """
    graded = [Grade(**grade) for grade in from_json(grades)]
    return _ANSWER.model_copy(update={"status": status, "grades": graded})


_ANSWER = CaseResult(case_id="", model="", status="pass", completion=Completion())
"""A single answer (no error, threshold or turns), as its testcase's verdict reads it."""


def _single(data: dict[str, Any], completion: dict[str, Any]) -> bool:
    """Whether a stored result is a single answer without an error, a threshold or tool calls."""
    return (
        data.get("turns") is None
        and data.get("threshold") is None
        and completion["error"] is None
        and not completion.get("tool_calls")
    )


_CASES = "promptum.cases"
"""Stands in a suite's skeleton for its test cases, which are written one at a time."""


@dataclass(slots=True)
class _Suite:
    """One model's testsuite while results arrive: its counts and its test cases so far."""

    cases: IO[str]
    tests: int = 0
    failures: int = 0
    errors: int = 0
    time: float = 0.0

    def add(self, case: str, kind: str | None, seconds: float) -> None:
        self.failures += kind == "failure"
        self.errors += kind == "error"
        self.time += seconds
        self.cases.write(("\n    " if self.tests else "") + case)
        self.tests += 1


def _asr_properties(rates: AttackRates, column: str) -> list[tuple[str, str]]:
    """A column's attack success properties; none for a column without red-team results."""
    if column not in rates.columns:
        return []
    # Imported for red-team results only: the rates' reporting reads the detectors' measured
    # quality, modules every other `-o junit.xml` would load to add nothing.
    from promptum.reporting._asr import junit_properties as asr_properties

    return asr_properties(rates, column)


def _testsuite(run: RunResult, model: str, suite: _Suite, flaky: list[CaseRate]) -> ET.Element:
    element = ET.Element(
        "testsuite",
        name=visible(model),
        tests=str(suite.tests),
        failures=str(suite.failures),
        errors=str(suite.errors),
        skipped="0",
        time=f"{suite.time:.3f}",
        timestamp=run.started_at.isoformat(timespec="seconds"),
    )
    properties = ET.SubElement(element, "properties")
    named = [f"{f.case_id} ({f.passed}/{f.total})" for f in flaky if f.model == model]
    for name, value in (
        ("run_id", run.run_id),
        ("suite", run.suite),
        ("complete", str(run.complete).lower()),
        ("flaky_cases", ", ".join(named)),
        ("gate", decide(run).line),
        *junit_properties(run.tally().metric_figures(), model),
        *_asr_properties(run.tally().asr(), model),
    ):
        ET.SubElement(properties, "property", name=visible(name), value=visible(value))
    if suite.tests:
        ET.SubElement(element, _CASES)
    return element


def _cases(source: ReportSource, repeated: bool) -> Iterator[_Case]:
    """Each result's testcase, from its stored JSON when the source has it."""
    if source.stored is None:
        return (_case(result, repeated) for result in source.results())
    stored = _StoredCases(repeated)
    return (stored.case(text) for text in source.stored())


def write_junit(source: ReportSource, out: TextIO) -> None:
    """Write the run as a JUnit XML document, one result at a time."""
    run = source.run
    tally = run.tally()
    with contextlib.ExitStack() as stack:
        # Each model's cases wait in a file of their own (memory while small): a testsuite's
        # counts come before its cases, and results arrive in plan order, not model by model.
        suites = {column: _Suite(stack.enter_context(spool())) for column in tally.columns()}
        for column, case, kind, seconds in _cases(source, tally.repeated):
            suites[column].add(case, kind, seconds)
        flaky = tally.flaky()
        elements = [_testsuite(run, column, suite, flaky) for column, suite in suites.items()]
        root = ET.Element(
            "testsuites",
            name=visible(run.suite or run.run_id),
            tests=str(sum(suite.tests for suite in suites.values())),
            failures=str(sum(suite.failures for suite in suites.values())),
            errors=str(sum(suite.errors for suite in suites.values())),
            time=f"{run.duration_s or 0.0:.3f}",
        )
        root.extend(elements)
        ET.indent(root)
        skeleton = ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
        parts = skeleton.split(f"<{_CASES} />")
        out.write(parts[0])
        for suite, after in zip([s for s in suites.values() if s.tests], parts[1:], strict=True):
            suite.cases.seek(0)
            shutil.copyfileobj(suite.cases, out)
            out.write(after)


def render_junit(run: RunResult) -> str:
    """The run as a JUnit XML document."""
    return rendered(write_junit, run)
