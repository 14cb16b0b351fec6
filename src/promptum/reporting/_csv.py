"""CSV: one row per case × model × repeat, for spreadsheets and scripts."""

from __future__ import annotations

import csv
from typing import TextIO

from promptum.reporting._conversation import failing_where
from promptum.reporting._metrics import CSV_COLUMNS, csv_cell_label, csv_cells
from promptum.reporting._numbers import COST_DIGITS, LATENCY_DIGITS, fixed
from promptum.reporting._source import ReportSource, rendered
from promptum.reporting._text import visible
from promptum.values.grade import CHECK_KINDS, Grade
from promptum.values.run_result import CaseResult, RunResult

COLUMNS = (
    "case_id",
    "model",
    "variant",
    "repeat",
    "status",
    "flaky",
    "checks_passed",
    "checks_total",
    "failed_checks",
    "assertion_failures",
    "judge_score",
    "latency_ms",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "cached",
    "error",
    "grades",
)


CONVERSATION_COLUMNS = ("turns", "failing_turn")
"""Added after the others when the run has a conversation: its number of turns, and its
first failing turn (``conversation`` when only a grade over the whole of it failed)."""


def _conversation_cells(result: CaseResult) -> list[str]:
    if result.turns is None:
        return ["", ""]
    number = result.failing_turn
    where = str(number) if number is not None else failing_where(result) or ""
    return [str(len(result.turns)), where]


def _inert(text: str) -> str:
    """Keep a spreadsheet from running text a model or server wrote as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _number(value: float | int | None) -> str:
    return "" if value is None else str(value)


def _grade_cell(grade: Grade) -> str:
    """One grade as ``kind:name=PASS`` (with ``@score`` when it has one)."""
    verdict = "ERROR" if grade.error is not None else "PASS" if grade.passed else "FAIL"
    score = "" if grade.score is None else f"@{grade.score:g}"
    return f"{grade.kind}:{grade.name}{csv_cell_label(grade)}={verdict}{score}"


def _row(result: CaseResult, flaky: dict[tuple[str, str], str]) -> list[str]:
    completion = result.completion
    checks = result.of_kind(*CHECK_KINDS)
    failures = [g for g in result.of_kind("assertion") if not g.passed]
    return [
        _inert(visible(result.key)),
        _inert(visible(result.model)),
        _inert(visible(result.variant or "")),
        str(result.repeat),
        result.status,
        flaky.get((result.key, result.column), ""),
        str(sum(g.passed for g in checks)),
        str(len(checks)),
        ";".join(visible(g.name) for g in checks if not g.passed),
        _inert(visible("; ".join(g.reason or "" for g in failures))),
        _number(result.judge_score),
        fixed(completion.latency_ms, LATENCY_DIGITS),
        _number(completion.input_tokens),
        _number(completion.output_tokens),
        fixed(completion.cost_usd, COST_DIGITS),
        "true" if completion.cached else "false",
        _inert(visible(completion.error or "")),
        _inert(visible(";".join(_grade_cell(g) for g in result.grades))),
    ]


def write_csv(source: ReportSource, out: TextIO) -> None:
    """Write the run as CSV with a header row."""
    # The default "\r\n" line ending (RFC 4180) also makes the writer quote a field holding a
    # lone "\r", which readers would otherwise take for the end of a row.
    writer = csv.writer(out)
    tally = source.run.tally()
    weighed = bool(tally.metrics.thresholded)  # a case's weighted score: two more columns
    talks = bool(tally.conversations)  # turns and the failing one: two more columns
    head = (*COLUMNS, *CSV_COLUMNS) if weighed else COLUMNS
    writer.writerow((*head, *CONVERSATION_COLUMNS) if talks else head)
    flaky = {(f.case_id, f.model): f"{f.passed}/{f.total}" for f in tally.flaky()}
    for result in source.results():
        row = _row(result, flaky)
        row = [*row, *csv_cells(result)] if weighed else row
        writer.writerow([*row, *_conversation_cells(result)] if talks else row)


def render_csv(run: RunResult) -> str:
    """The run as CSV with a header row."""
    return rendered(write_csv, run)
