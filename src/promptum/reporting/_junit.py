"""JUnit XML: one testsuite per model, one testcase per case and repeat.

CI systems read this to gate a build, so a result's failure type follows the precedence in
`_outcome` and every check outcome, passed ones included, is written to ``system-out``.
"""

from __future__ import annotations

import contextlib
import shutil
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import IO, TextIO

from promptum.gate import decide
from promptum.rates import CaseRate
from promptum.reporting._asr import junit_properties as asr_properties
from promptum.reporting._conversation import turn_lines
from promptum.reporting._metrics import junit_properties, label
from promptum.reporting._outcome import outcome
from promptum.reporting._source import ReportSource, rendered, spool
from promptum.reporting._text import visible
from promptum.reporting._transformed import transformed_texts
from promptum.values.case_result import TURN
from promptum.values.grade import Grade, samples_note
from promptum.values.metrics import score_line
from promptum.values.run_result import CaseResult, RunResult


def _seconds(result: CaseResult) -> float:
    # A cached answer took no time in this run; its original latency stays in system-out.
    if result.completion.cached:
        return 0.0
    return (result.completion.latency_ms or 0.0) / 1000


def _case_name(result: CaseResult, repeated: bool) -> str:
    return f"{result.key} [repeat {result.repeat}]" if repeated else result.key


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


def _system_out(result: CaseResult) -> str:
    lines = [f"status: {result.status}"]
    weighed = score_line(result)
    if weighed is not None:
        lines.append(weighed)
    lines += [_turn(result, grade) + _grade_line(grade) + label(grade) for grade in result.grades]
    completion = result.completion
    if completion.cached:
        lines.append("cached: true")
    if result.turns is not None:
        lines += ["transcript:", *turn_lines(result, limit=None)]
    elif completion.error is None:
        lines += ["response:", completion.text]
        for text in transformed_texts(result):
            lines += ["response after transform:", text]
    if completion.tool_calls:
        lines += ["tool calls:", *(f"  {call.describe()}" for call in completion.tool_calls)]
    return "\n".join(lines)


def _attribute(text: str) -> str:
    """An attribute's value escaped as ElementTree escapes it: as text, then quotes and spaces."""
    text = _text(text)
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "\r" in text:
        text = text.replace("\r", "&#13;")
    if "\n" in text:
        text = text.replace("\n", "&#10;")
    if "\t" in text:
        text = text.replace("\t", "&#09;")
    return text


def _text(text: str) -> str:
    """An element's text escaped as ElementTree escapes it."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
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


def _testcase(result: CaseResult, repeated: bool) -> tuple[str, str | None]:
    """The testcase as `ET.tostring` writes it indented two levels deep, and its verdict's kind.

    Written as text: building and serializing an element tree per result cost most of the
    report's time.
    """
    attributes = [
        ("name", visible(_case_name(result, repeated))),
        ("classname", visible(result.column)),
        ("time", f"{_seconds(result):.3f}"),
    ]
    if result.source:
        # file/line are read by GitHub annotators (e.g. action-junit-report) to point at the case.
        file, _, line = result.source.rpartition(":")
        if file and line.isdigit():
            attributes += [("file", visible(file)), ("line", line)]
        else:
            attributes.append(("file", visible(result.source)))
    parts = [_opened("testcase", attributes), ">"]
    verdict = outcome(result)
    if verdict is not None:
        details = visible("\n".join(verdict.details))
        named = [("type", verdict.type), ("message", visible(verdict.message))]
        parts += (_CHILD, _element(verdict.kind, named, details))
    parts += (_CHILD, _element("system-out", [], visible(_system_out(result))), "\n    </testcase>")
    return "".join(parts), None if verdict is None else verdict.kind


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

    def add(self, result: CaseResult, repeated: bool) -> None:
        case, kind = _testcase(result, repeated)
        self.failures += kind == "failure"
        self.errors += kind == "error"
        self.time += _seconds(result)
        self.cases.write(("\n    " if self.tests else "") + case)
        self.tests += 1


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
        *asr_properties(run.tally().asr(), model),
    ):
        ET.SubElement(properties, "property", name=visible(name), value=visible(value))
    if suite.tests:
        ET.SubElement(element, _CASES)
    return element


def write_junit(source: ReportSource, out: TextIO) -> None:
    """Write the run as a JUnit XML document, one result at a time."""
    run = source.run
    tally = run.tally()
    with contextlib.ExitStack() as stack:
        # Each model's cases wait in a file of their own (memory while small): a testsuite's
        # counts come before its cases, and results arrive in plan order, not model by model.
        suites = {column: _Suite(stack.enter_context(spool())) for column in tally.columns()}
        for result in source.results():
            suites[result.column].add(result, tally.repeated)
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
