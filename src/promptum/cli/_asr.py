"""The attack success rates in the terminal: a compact table, only for runs with red-team cases."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from promptum.comparison_figures import VariantLead
    from promptum.values.asr import AttackCounts, AttackRates, Baseline


def cell(counts: AttackCounts) -> str:
    """``34% [28–41%] 17/50``; the undetermined, never counted as either, said apart."""
    if not counts.total:
        return "-"
    return f"{counts.text} {counts.counts_text}"


def rows(rates: AttackRates) -> list[tuple[str, str | None, str | None]]:
    """(label, goal, strategy): every attack, then each goal, then each strategy."""
    return [
        ("All attacks", None, None),
        *((f"goal {goal}", goal, None) for goal in rates.goals),
        *((f"strategy {strategy}", None, strategy) for strategy in rates.strategies),
    ]


def print_asr(console: Console, rates: AttackRates) -> None:
    """The attack success rate per goal and strategy, one column per model (· variant).

    Under each goal, its rate corrected for the detector's measured errors (beside the
    counted one, which the gate reads), and below the table what each correction used.
    """
    if not rates:
        return
    from rich.markup import escape
    from rich.table import Table

    from promptum.redteam.corrected_rates import corrections

    fixes = corrections(rates)

    # The cells say the rest: the rate, its interval, succeeded/determined, the undetermined.
    table = Table(title="Attack success rate (95% CI)", title_justify="left")
    table.add_column("")
    for column in rates.columns:
        table.add_column(escape(column), justify="right", overflow="fold")
    for label, goal, strategy in rows(rates):
        table.add_row(
            escape(label), *(cell(rates.counts(c, goal, strategy)) for c in rates.columns)
        )
        if goal is not None:
            table.add_row(
                "  corrected",
                *(fixes[goal].text(rates.counts(c, goal)) for c in rates.columns),
            )
        if goal is not None and rates.baseline(None, goal) is not None:
            table.add_row(
                "  without attack", *(control_cell(rates.baseline(c, goal)) for c in rates.columns)
            )
    console.print(table)
    console.print("Corrected for the detector's errors (Rogan–Gladen):", highlight=False)
    for goal in rates.goals:
        console.print(f"  {escape(fixes[goal].note)}", highlight=False, soft_wrap=True)
    also = rates.also_failed
    if also:
        console.print(f"Shown apart, not as successes: {escape(also)}", highlight=False)


def control_cell(baseline: Baseline | None) -> str:
    """The goal's rate without attack and the difference, or ``-`` without a control."""
    return "-" if baseline is None else baseline.text


def print_lead_asr(console: Console, lead: VariantLead) -> None:
    """Under a variant lead: the two variants' attack success rates, paired."""
    from rich.markup import escape

    from promptum.comparison_figures import asr_lines

    changes = lead.comparison.asr
    for line in asr_lines(changes, lead.runner_up, lead.best, f" on {lead.where}"):
        console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
