"""Named metrics in every report: per-metric figures per column, and a case's weighted score.

Each format calls in here where it shows metrics. A run without a metric or a threshold
gets nothing from here, so its reports read as they always have (docs/metrics.md).
"""

from __future__ import annotations

from typing import Any

from promptum.reporting import _format as fmt
from promptum.reporting._text import inline_markdown as md
from promptum.values.grade import Grade
from promptum.values.metrics import METRIC, WEIGHT, MetricFigures, figures_json, metric_problem
from promptum.values.run_result import CaseResult


def json_figures(figures: MetricFigures) -> dict[str, Any]:
    """The JSON report's ``metrics`` entry: metric → column → figures; empty without any."""
    return {"metrics": figures_json(figures)} if figures else {}


def markdown_lines(figures: MetricFigures) -> list[str]:
    """The Markdown report's ``Metrics`` table, one row per metric and column."""
    if not figures:
        return []
    lines = [
        "### Metrics",
        "",
        "| Metric | Model | Pass rate | Passed | Errors | Mean score |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for metric, columns in figures.items():
        for column, stats in columns.items():
            lines.append(
                f"| {md(metric)} | {md(column)} | {fmt.percent(stats.pass_rate)} "
                f"| {stats.passed}/{stats.total} | {stats.errors} | {fmt.score(stats.mean_score)} |"
            )
    return ["", *lines]


def junit_properties(figures: MetricFigures, column: str) -> list[tuple[str, str]]:
    """A testsuite's (a column's) metric properties: ``metric.<name>.pass_rate`` and others."""
    properties: list[tuple[str, str]] = []
    for metric, columns in figures.items():
        stats = columns.get(column)
        if stats is None:
            continue
        mean = "" if stats.mean_score is None else f"{stats.mean_score:.4g}"
        properties += [
            (f"metric.{metric}.pass_rate", f"{stats.pass_rate:.4g}"),
            (f"metric.{metric}.mean_score", mean),
            (f"metric.{metric}.passed", str(stats.passed)),
            (f"metric.{metric}.total", str(stats.total)),
            (f"metric.{metric}.errors", str(stats.errors)),
        ]
    return properties


def label(grade: Grade) -> str:
    """`` [metric accuracy, weight 2]``: what a grade is counted under, "" when nothing."""
    parts = []
    metric = grade.details.get(METRIC)
    if isinstance(metric, str) and metric_problem(metric) is None:
        parts.append(f"metric {metric}")
    weight = grade.details.get(WEIGHT)
    if isinstance(weight, int | float) and not isinstance(weight, bool):
        parts.append(f"weight {weight:g}")
    return f" [{', '.join(parts)}]" if parts else ""


def csv_cell_label(grade: Grade) -> str:
    """A grade's metric in its CSV cell, ``[accuracy]``; "" without one."""
    metric = grade.details.get(METRIC)
    return f"[{metric}]" if isinstance(metric, str) and metric_problem(metric) is None else ""


CSV_COLUMNS = ("score", "threshold")
"""Columns the CSV report adds when a case of the run has a ``threshold:``."""


def csv_cells(result: CaseResult) -> list[str]:
    """A result's weighted score and threshold as CSV cells ("" where it has none)."""
    return [
        "" if result.score is None else f"{result.score:g}",
        "" if result.threshold is None else f"{result.threshold:g}",
    ]
