"""A comparison as Markdown, for a pull-request comment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptum.compare import _text as text
from promptum.compare._asr import pair_asr_lines
from promptum.comparison_figures import CaseChange, Comparison, ModelComparison

if TYPE_CHECKING:
    from promptum.gate import GateDecision

MAX_CASES = 30
"""Cases listed per kind before the rest are only counted: a PR comment must stay short."""
_ICONS = {"regression": "🔻", "improvement": "🔺", "no significant change": "➖"}


def _cases(title: str, changes: list[CaseChange], must_pass: frozenset[str]) -> list[str]:
    if not changes:
        return []
    lines = ["", f"**{title} ({len(changes)})**", ""]
    for change in changes[:MAX_CASES]:
        marked = " **(must pass)**" if change.case_id in must_pass else ""
        lines.append(
            f"- {text.markdown(change.case_id)}{marked}: "
            f"{change.before.outcome} → {change.after.outcome}"
            f" · {text.markdown(change.after.responses[0] if change.after.responses else '', 80)}"
        )
    if len(changes) > MAX_CASES:
        lines.append(f"- …and {len(changes) - MAX_CASES} more")
    return lines


def _pair(pair: ModelComparison) -> list[str]:
    lines = [
        "",
        f"### {_ICONS[pair.verdict]} {text.markdown(pair.a.label)} → {text.markdown(pair.b.label)}",
        "",
        f"**{text.verdict_line(pair)}**",
        "",
        "| | A | B | B − A |",
        "| --- | ---: | ---: | ---: |",
    ]
    lines += [f"| {name} | {a} | {b} | {d} |" for name, a, b, d in text.figure_rows(pair)]
    attacks = pair_asr_lines(pair)
    if attacks:
        lines += ["", *(f"- {text.markdown(line, None)}" for line in attacks)]
    lines += _cases("Regressed", pair.of_kind("regressed"), pair.must_pass)
    lines += _cases("Fixed", pair.of_kind("fixed"), pair.must_pass)
    lines += _cases("Changed, same pass rate", pair.of_kind("changed"), pair.must_pass)
    flaky = [(side, rate) for side in (pair.a, pair.b) for rate in side.flaky]
    if flaky:
        lines += ["", f"**Flaky cases ({len(flaky)})**", ""]
        lines += [
            f"- {text.markdown(rate.case_id)} on {text.markdown(side.label)}: "
            f"passed {rate.passed} of {rate.total}"
            for side, rate in flaky[:MAX_CASES]
        ]
    if pair.only_a or pair.only_b:
        lines += ["", f"Cases only in A: {len(pair.only_a)}; only in B: {len(pair.only_b)}."]
    return lines


def comparison_markdown(comparison: Comparison, gate: GateDecision | None = None) -> str:
    """The comparison as a Markdown section per model pair, under the `gate` line when given."""
    a, b = comparison.run_a, comparison.run_b
    regressions = len(comparison.regressions)
    lines = [
        f"## promptum compare: {text.markdown(b.run_id)} against {text.markdown(a.run_id)}",
        "",
    ]
    if gate is not None:
        icon = "✅" if gate.passed else "❌"
        # The reason names case ids from the suite: made inert, and never cut.
        lines += [f"{icon} **{text.markdown(gate.line, None)}**", ""]
    lines += [
        f"{regressions} significant regression(s) in {len(comparison.models)} comparison(s).",
    ]
    if comparison.unpaired:
        lines += ["", *(f"- ⚠️ {text.markdown(line, None)}" for line in comparison.unpaired)]
    for pair in comparison.models:
        lines += _pair(pair)
    return "\n".join(lines) + "\n"
