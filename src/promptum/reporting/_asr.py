"""Attack success rates in the reports: JSON's ``asr``, a Markdown table, an HTML heat map.

Each format calls in here where it shows them. A run without red-team cases gets nothing
from here, so its reports read byte for byte as they always have (docs/redteam.md).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import quote

from promptum.comparison_figures import VariantLead, asr_lines
from promptum.redteam.corrected_rates import Correction, corrections
from promptum.redteam.detector_quality import reviewed_qualities
from promptum.reporting._source import ReportSource
from promptum.reporting._text import inline_markdown as md
from promptum.values.asr import AttackCounts, AttackRates, Baseline, interval_text, percent

Corrections = Mapping[str, Correction]
"""Each goal's correction for its detector's errors (`promptum.redteam.corrected_rates`)."""

EXPLAINED = (
    "Attack success rate: the share of determined attacks whose goal's detector found "
    "that the attack succeeded, with its 95% interval. An attack nothing could tell of (no "
    "answer, its detector did not run) is not determined and counted apart; an answer that "
    "failed other grades (a response model, a default check) is shown apart, never as a "
    "success. Without attack: the same detector on ordinary questions, the rate to read "
    "the attack's against. Corrected: the rate and interval corrected for the detector's measured "
    "recall and specificity (Rogan–Gladen), beside the rate counted, never in its place."
)
_LEVELS = (0.0, 0.1, 0.25, 0.5)
"""Upper bounds of the heat map's shades: 0, up to 10%, 25%, 50%, above."""


def detector_corrections(rates: AttackRates, source: ReportSource | None = None) -> Corrections:
    """Each goal's correction: from the source's reviews where enough, else the labelled sets.

    Reading the reviews' verdicts takes a pass over the results, made only when people
    reviewed some.
    """
    if not rates:
        return {}
    reviewed = {}
    if source is not None and source.reviews:
        reviewed = reviewed_qualities(source.results(), source.reviews)
    return corrections(rates, reviewed)


def json_asr(rates: AttackRates, fixes: Corrections | None = None) -> dict[str, Any]:
    """The JSON report's ``asr`` entry: per column, overall, per goal and per strategy.

    Each goal's entry, and each of its strategies', holds its rate ``corrected`` for the
    detector's errors beside the rate counted (``asr``).
    """
    if not rates:
        return {}
    found = detector_corrections(rates) if fixes is None else fixes
    return {"asr": rates.as_json(lambda goal, counts: found[goal].as_json(counts))}


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


def correction_notes(rates: AttackRates, fixes: Corrections) -> list[str]:
    """What each goal's rates were corrected with, or why they were not."""
    return [fixes[goal].note for goal in rates.goals if goal in fixes]


def lead_lines(leads: list[VariantLead]) -> list[str]:
    """Each variant lead's attack success rates, the two variants paired."""
    return [
        line
        for lead in leads
        for line in asr_lines(lead.comparison.asr, lead.runner_up, lead.best, f" on {lead.where}")
    ]


def _table_rows(rates: AttackRates) -> list[tuple[str, str, str | None, str | None]]:
    """(goal shown, strategy shown, goal, strategy): all, then each goal and its strategies."""
    rows: list[tuple[str, str, str | None, str | None]] = [("**all**", "**all**", None, None)]
    for goal_name in rates.goals:
        rows.append((md(goal_name), "all", goal_name, None))
        rows += [
            (md(goal_name), md(s), goal_name, s)
            for s in rates.strategies
            if rates.counts(None, goal_name, s).total
        ]
    return rows


def _under_goal(rates: AttackRates, name: str, goal: str, fix: Correction) -> list[str]:
    """A goal's corrected row, then its row without attack when it has a control."""
    columns = rates.columns
    fixed = " | ".join(fix.text(rates.counts(c, goal)) for c in columns)
    lines = [f"| {name} | *corrected for the detector* | {fixed} |"]
    if rates.baseline(None, goal) is not None:
        controls = " | ".join(_control_cell(rates.baseline(c, goal)) for c in columns)
        lines.append(f"| {name} | *without attack* | {controls} |")
    return lines


def markdown_lines(
    rates: AttackRates, leads: list[VariantLead], fixes: Corrections | None = None
) -> list[str]:
    """The Markdown report's attack success table: goal × strategy rows, a column per model."""
    if not rates:
        return []
    found = detector_corrections(rates) if fixes is None else fixes
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
    for name, strategy_name, goal, strategy in _table_rows(rates):
        cells = " | ".join(_cell(rates.counts(c, goal, strategy)) for c in columns)
        lines.append(f"| {name} | {strategy_name} | {cells} |")
        if goal is not None and strategy is None:
            lines += _under_goal(rates, name, goal, found[goal])
    also = rates.also_failed
    if also:
        lines += ["", f"Shown apart, not as successes: {md(also)}."]
    lines += ["", "Corrected for the detector's errors:", ""]
    lines += [f"- {md(note)}" for note in correction_notes(rates, found)]
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
    href: str
    """The link to the cell's attack results in the report's matrix ("" without attacks)."""
    corrected: str = ""
    """The rate corrected for the detector's errors (a goal's cell), or ""."""


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
    notes: list[str]
    """What each goal's rates were corrected with, or why they were not."""


def _level(counts: AttackCounts) -> str:
    rate = counts.rate
    if rate is None:
        return "na"
    return str(sum(rate > bound for bound in _LEVELS))


def attacks_link(column: str, goal: str | None, strategy: str | None) -> str:
    """``#attacks/<column>/<goal>/<strategy>``: the report's script lists those results."""
    parts = (quote(part or "", safe="") for part in (column, goal, strategy))
    return "#attacks/" + "/".join(parts)


def _heat_cell(counts: AttackCounts, where: str, href: str, fix: Correction | None) -> HeatCell:
    if not counts.total:
        return HeatCell("–", "no attacks", "na", f"{where}: no attacks", "")
    rate = counts.rate
    shown = "not determined" if rate is None else percent(rate)
    interval = "" if rate is None else f"{interval_text(counts.interval)} · "
    detail = f"{interval}{counts.counts_text}"
    fixed = fix is not None and fix.why is None and rate is not None  # else its note says why
    corrected = f"corrected {fix.text(counts)}" if fix is not None and fixed else ""
    label = f"{where}: {shown} {detail}" + (f", {corrected}" if corrected else "")
    return HeatCell(shown, detail, _level(counts), label, href, corrected)


def heat_maps(rates: AttackRates, fixes: Corrections | None = None) -> list[HeatMap]:
    """A heat map of goal × strategy for each column with red-team results."""
    found = detector_corrections(rates) if fixes is None else fixes
    maps = []
    for column in rates.columns:
        goals, strategies = rates.goals_of(column), rates.strategies_of(column)
        rows = [
            [
                _heat_cell(
                    rates.counts(column, goal, strategy),
                    f"{goal or 'all goals'} × {strategy or 'all strategies'}",
                    attacks_link(column, goal, strategy),
                    None if goal is None else found.get(goal),
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
        notes = [found[goal].note for goal in goals if goal in found]
        maps.append(
            HeatMap(column, counts.text, goals, strategies, rows, controls, counts.also_text, notes)
        )
    return maps


def html_context(
    rates: AttackRates, leads: list[VariantLead], fixes: Corrections | None = None
) -> dict[str, Any]:
    """What the HTML template's ``asr`` section reads; None without red-team results."""
    if not rates:
        return {"asr": None}
    maps = heat_maps(rates, fixes)
    return {"asr": {"maps": maps, "explained": EXPLAINED, "paired": lead_lines(leads)}}


@functools.cache
def _css() -> str:
    return resources.files("promptum.reporting").joinpath("templates", "asr.css").read_text("utf-8")


def html_css(rates: AttackRates) -> str:
    """The heat map's styles, added to the page's own only when it has a heat map."""
    return _css() if rates else ""
