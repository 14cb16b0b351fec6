"""The terminal summary's metrics table: one row per metric, one column per model (· variant)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from promptum.values.metrics import MetricFigures


def print_metrics(console: Console, figures: MetricFigures, columns: list[str]) -> None:
    """Each metric's pass rate and mean score per column; nothing when no grade has a metric."""
    if not figures:
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Metrics", title_justify="left")
    table.add_column("Metric")
    shown = [column for column in columns if any(column in row for row in figures.values())]
    for column in shown:
        table.add_column(escape(column), justify="right", overflow="fold")
    for metric, row in figures.items():
        cells = [row[column].line if column in row else "-" for column in shown]
        table.add_row(escape(metric), *(escape(cell) for cell in cells))
    console.print(table)
