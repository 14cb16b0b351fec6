"""JUnit XML: one testsuite per model, one testcase per case and repeat.

CI systems read this to gate a build, so a result's failure type follows the precedence in
`_outcome` and every check outcome, passed ones included, is written to ``system-out``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from promptum.gate import decide
from promptum.grades import Grade, samples_note
from promptum.rates import flaky_cases
from promptum.reporting._outcome import outcome
from promptum.reporting._text import visible
from promptum.results import CaseResult, RunResult


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


def _system_out(result: CaseResult) -> str:
    lines = [f"status: {result.status}"]
    lines += [_grade_line(grade) for grade in result.grades]
    completion = result.completion
    if completion.cached:
        lines.append("cached: true")
    if completion.error is None:
        lines += ["response:", completion.text]
    if completion.tool_calls:
        lines += ["tool calls:", *(f"  {call.describe()}" for call in completion.tool_calls)]
    return "\n".join(lines)


def _testcase(result: CaseResult, repeated: bool) -> ET.Element:
    element = ET.Element(
        "testcase",
        name=visible(_case_name(result, repeated)),
        classname=visible(result.column),
        time=f"{_seconds(result):.3f}",
    )
    if result.source:
        # file/line are read by GitHub annotators (e.g. action-junit-report) to point at the case.
        file, _, line = result.source.rpartition(":")
        if file and line.isdigit():
            element.set("file", visible(file))
            element.set("line", line)
        else:
            element.set("file", visible(result.source))
    verdict = outcome(result)
    if verdict is not None:
        child = ET.SubElement(
            element, verdict.kind, type=verdict.type, message=visible(verdict.message)
        )
        child.text = visible("\n".join(verdict.details))
    ET.SubElement(element, "system-out").text = visible(_system_out(result))
    return element


def _testsuite(run: RunResult, model: str, results: list[CaseResult], repeated: bool) -> ET.Element:
    cases = [_testcase(r, repeated) for r in results]
    errors = sum(c.find("error") is not None for c in cases)
    failures = sum(c.find("failure") is not None for c in cases)
    suite = ET.Element(
        "testsuite",
        name=visible(model),
        tests=str(len(cases)),
        failures=str(failures),
        errors=str(errors),
        skipped="0",
        time=f"{sum(_seconds(r) for r in results):.3f}",
        timestamp=run.started_at.isoformat(timespec="seconds"),
    )
    properties = ET.SubElement(suite, "properties")
    flaky = [f"{f.case_id} ({f.passed}/{f.total})" for f in flaky_cases(run) if f.model == model]
    for name, value in (
        ("run_id", run.run_id),
        ("suite", run.suite),
        ("complete", str(run.complete).lower()),
        ("flaky_cases", ", ".join(flaky)),
        ("gate", decide(run).line),
    ):
        ET.SubElement(properties, "property", name=name, value=visible(value))
    suite.extend(cases)
    return suite


def render_junit(run: RunResult) -> str:
    """The run as a JUnit XML document."""
    repeated = any(r.repeat > 1 for r in run.results)
    suites = [_testsuite(run, model, rs, repeated) for model, rs in run.by_model().items()]
    root = ET.Element(
        "testsuites",
        name=visible(run.suite or run.run_id),
        tests=str(sum(int(s.get("tests", 0)) for s in suites)),
        failures=str(sum(int(s.get("failures", 0)) for s in suites)),
        errors=str(sum(int(s.get("errors", 0)) for s in suites)),
        time=f"{run.duration_s or 0.0:.3f}",
    )
    root.extend(suites)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
