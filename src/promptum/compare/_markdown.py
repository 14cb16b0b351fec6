"""A comparison as Markdown, for a pull-request comment."""

from __future__ import annotations

from promptum.compare import _text as text
from promptum.compare._compare import CaseChange, Comparison, ModelComparison

MAX_CASES = 30
"""Cases listed per kind before the rest are only counted: a PR comment must stay short."""
_ICONS = {"regression": "🔻", "improvement": "🔺", "no significant change": "➖"}


def _cases(title: str, changes: list[CaseChange]) -> list[str]:
    if not changes:
        return []
    lines = ["", f"**{title} ({len(changes)})**", ""]
    for change in changes[:MAX_CASES]:
        lines.append(
            f"- {text.markdown(change.case_id)}: {change.before.outcome} → {change.after.outcome}"
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
    lines += _cases("Regressed", pair.of_kind("regressed"))
    lines += _cases("Fixed", pair.of_kind("fixed"))
    lines += _cases("Changed response, same outcome", pair.of_kind("changed"))
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


def comparison_markdown(comparison: Comparison) -> str:
    """The comparison as a Markdown section per model pair."""
    a, b = comparison.run_a, comparison.run_b
    regressions = len(comparison.regressions)
    lines = [
        f"## promptum compare: {text.markdown(b.run_id)} against {text.markdown(a.run_id)}",
        "",
        f"{regressions} significant regression(s) in {len(comparison.models)} comparison(s).",
    ]
    for pair in comparison.models:
        lines += _pair(pair)
    return "\n".join(lines) + "\n"
