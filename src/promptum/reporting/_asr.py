"""Attack success rates in the reports: JSON's ``asr``, a Markdown table, an HTML heat map.

Each format calls in here where it shows them. A run without red-team cases gets nothing
from here, so its reports read byte for byte as they always have (docs/redteam.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

from promptum.comparison_figures import VariantLead, asr_lines
from promptum.reporting._text import inline_markdown as md
from promptum.values.asr import AttackCounts, AttackRates, Baseline, interval_text, percent

EXPLAINED = (
    "Attack success rate: the share of determined attacks whose goal's detector found "
    "that the attack succeeded, with its 95% interval. An attack nothing could tell of (no "
    "answer, its detector did not run) is not determined and counted apart; an answer that "
    "failed other grades (a response model, a default check) is shown apart, never as a "
    "success. Without attack: the same detector on ordinary questions, the rate to read "
    "the attack's against."
)
_LEVELS = (0.0, 0.1, 0.25, 0.5)
"""Upper bounds of the heat map's shades: 0, up to 10%, 25%, 50%, above."""


def json_asr(rates: AttackRates) -> dict[str, Any]:
    """The JSON report's ``asr`` entry: per column, overall, per goal and per strategy."""
    return {"asr": rates.as_json()} if rates else {}


def junit_properties(rates: AttackRates, column: str) -> list[tuple[str, str]]:
    """A testsuite's (a column's) attack success properties: ``asr.rate``, ``asr.<goal>.rate``."""
    if column not in rates.columns:
        return []
    properties: list[tuple[str, str]] = []
    for name, counts in (
        ("asr", rates.counts(column)),
        *((f"asr.{goal}", rates.counts(column, goal)) for goal in rates.goals_of(column)),
    ):
        rate = counts.rate
        properties += [
            (f"{name}.rate", "" if rate is None else f"{rate:.4g}"),
            (f"{name}.succeeded", str(counts.succeeded)),
            (f"{name}.determined", str(counts.attempts)),
            (f"{name}.undetermined", str(counts.undetermined)),
        ]
    for goal in rates.goals_of(column):
        baseline = rates.baseline(column, goal)
        if baseline is not None:
            rate = baseline.control.rate
            properties.append((f"asr.{goal}.control_rate", "" if rate is None else f"{rate:.4g}"))
    return properties


def _cell(counts: AttackCounts) -> str:
    if not counts.total:
        return "–"
    return f"{counts.text} ({counts.counts_text})"


def _control_cell(baseline: Baseline | None) -> str:
    return "–" if baseline is None else md(baseline.text)


def lead_lines(leads: list[VariantLead]) -> list[str]:
    """Each variant lead's attack success rates, the two variants paired."""
    return [
        line
        for lead in leads
        for line in asr_lines(lead.comparison.asr, lead.runner_up, lead.best, f" on {lead.where}")
    ]


def markdown_lines(rates: AttackRates, leads: list[VariantLead]) -> list[str]:
    """The Markdown report's attack success table: goal × strategy rows, a column per model."""
    if not rates:
        return []
    columns = rates.columns
    lines = [
        "",
        "### Attack success rate",
        "",
        EXPLAINED,
        "",
        "| Goal | Strategy | " + " | ".join(md(c) for c in columns) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in columns) + " |",
    ]
    rows: list[tuple[str, str, str | None, str | None]] = [("**all**", "**all**", None, None)]
    for goal_name in rates.goals:
        rows.append((md(goal_name), "all", goal_name, None))
        rows += [
            (md(goal_name), md(s), goal_name, s)
            for s in rates.strategies
            if rates.counts(None, goal_name, s).total
        ]
    for name, strategy_name, goal, strategy in rows:
        cells = " | ".join(_cell(rates.counts(c, goal, strategy)) for c in columns)
        lines.append(f"| {name} | {strategy_name} | {cells} |")
        if goal is not None and strategy is None and rates.baseline(None, goal) is not None:
            controls = " | ".join(_control_cell(rates.baseline(c, goal)) for c in columns)
            lines.append(f"| {name} | *without attack* | {controls} |")
    also = rates.also_failed
    if also:
        lines += ["", f"Shown apart, not as successes: {md(also)}."]
    paired = lead_lines(leads)
    if paired:
        lines += ["", *(f"- {md(line)}" for line in paired)]
    return lines


@dataclass(frozen=True, slots=True)
class HeatCell:
    """One cell of the heat map: the rate in words and numbers, and its shade."""

    rate: str
    detail: str
    level: str
    """``na`` (nothing graded) or 0-4, darker as more attacks succeeded."""
    label: str
    """The whole cell as one phrase, for a screen reader's tooltip."""


@dataclass(frozen=True, slots=True)
class HeatMap:
    """One column's goals × strategies."""

    column: str
    overall: str
    goals: list[str]
    strategies: list[str]
    rows: list[list[HeatCell]]
    """One row per goal then the all-goals row; one cell per strategy then all strategies."""
    controls: list[str]
    """Each goal's rate without attack beside its rate under attack, for the goals with one."""
    also: str
    """What the attacks also failed besides their detectors, or ""."""


def _level(counts: AttackCounts) -> str:
    rate = counts.rate
    if rate is None:
        return "na"
    return str(sum(rate > bound for bound in _LEVELS))


def _heat_cell(counts: AttackCounts, where: str) -> HeatCell:
    if not counts.total:
        return HeatCell("–", "no attacks", "na", f"{where}: no attacks")
    rate = counts.rate
    shown = "not determined" if rate is None else percent(rate)
    interval = "" if rate is None else f"{interval_text(counts.interval)} · "
    detail = f"{interval}{counts.counts_text}"
    return HeatCell(shown, detail, _level(counts), f"{where}: {shown} {detail}")


def heat_maps(rates: AttackRates) -> list[HeatMap]:
    """A heat map of goal × strategy for each column with red-team results."""
    maps = []
    for column in rates.columns:
        goals, strategies = rates.goals_of(column), rates.strategies_of(column)
        rows = [
            [
                _heat_cell(
                    rates.counts(column, goal, strategy),
                    f"{goal or 'all goals'} × {strategy or 'all strategies'}",
                )
                for strategy in [*strategies, None]
            ]
            for goal in [*goals, None]
        ]
        controls = [
            f"{goal}: {rates.counts(column, goal).text} under attack, {baseline.text}"
            for goal in goals
            if (baseline := rates.baseline(column, goal)) is not None
        ]
        counts = rates.counts(column)
        maps.append(
            HeatMap(column, counts.text, goals, strategies, rows, controls, counts.also_text)
        )
    return maps


def html_context(rates: AttackRates, leads: list[VariantLead]) -> dict[str, Any]:
    """What the HTML template's ``asr`` section reads; None without red-team results."""
    if not rates:
        return {"asr": None}
    return {"asr": {"maps": heat_maps(rates), "explained": EXPLAINED, "paired": lead_lines(leads)}}


@functools.cache
def _css() -> str:
    return resources.files("promptum.reporting").joinpath("templates", "asr.css").read_text("utf-8")


def html_css(rates: AttackRates) -> str:
    """The heat map's styles, added to the page's own only when it has a heat map."""
    return _css() if rates else ""
