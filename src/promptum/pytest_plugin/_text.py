"""What a person reads when a case or `assert_prompt` does not pass: reasons, then the response."""

from __future__ import annotations

from _pytest._code.code import ReprEntryNative, ReprExceptionInfo, ReprFileLocation, ReprTraceback

from promptum.reporting import outcome, shorten, turn_lines, visible
from promptum.values.run_result import CaseResult

EXCERPT = 600
"""Characters of the response shown under the reasons."""


def response_excerpt(text: str, limit: int = EXCERPT) -> list[str]:
    """The start of a response, control characters made visible, as indented lines."""
    if not text.strip():
        return ["    (empty)"]
    return [f"    {line}" for line in shorten(visible(text.strip()), limit).splitlines()]


def headline(result: CaseResult) -> str:
    """Why the result did not pass, in one line: the deciding reason JUnit reports too."""
    decided = outcome(result)
    if decided is None:
        return "passed"
    return decided.message


def reason_lines(result: CaseResult) -> list[str]:
    """Every reason, then what the model said (nothing when the call failed), or the transcript."""
    lines = [f"    - {reason}" for reason in result.reasons]
    completion = result.completion
    if result.turns is not None:
        lines.append("Transcript:")
        lines += [f"    {line}" for line in turn_lines(result)]
    elif completion.ok:
        figures = [f"{len(completion.text)} characters"]
        if completion.latency_ms is not None:
            figures.append("cached" if completion.cached else f"{completion.latency_ms:.0f} ms")
        lines.append(f"Response ({', '.join(figures)}):")
        lines += response_excerpt(completion.text)
    return lines


def case_text(result: CaseResult) -> str:
    """A case's failure as the CLI lists it: status, case, model and source, then reasons."""
    repeat = f", repeat {result.repeat}" if result.repeat > 1 else ""
    where = f" {result.source}" if result.source else ""
    first = f"{result.status.upper()} {result.case_id} ({result.model}{repeat}){where}"
    return "\n".join([first, *reason_lines(result)])


def case_longrepr(result: CaseResult) -> ReprExceptionInfo:
    """The report of a case that did not pass, shown as text, with its headline as the summary.

    Built from pytest's own report parts so that the short summary (``-ra``), JUnit's
    ``message`` and pytest-xdist (which sends reports between processes) all keep both.
    """
    path, _, line = (result.source or "").rpartition(":")
    lineno = int(line) if line.isdigit() else 0
    location = ReprFileLocation(path or result.case_id, lineno, headline(result))
    entry = ReprEntryNative([case_text(result) + "\n"])
    return ReprExceptionInfo(
        reprtraceback=ReprTraceback([entry], None, "native"), reprcrash=location
    )
