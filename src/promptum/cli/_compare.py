"""`promptum compare A B`: what changed between two runs, or two models, and whether it is real."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from promptum.cli._console import escape, exit_on_user_error, make_console
from promptum.cli._options import json_option
from promptum.cli._runs import db_option, open_store

if TYPE_CHECKING:
    from rich.console import Console

    from promptum.compare import CaseChange, Comparison, ModelComparison
    from promptum.gate import GateDecision
    from promptum.values.run_result import RunResult

EXIT_OK, EXIT_REGRESSION = 0, 1
_SHOWN = 20
"""Cases listed per kind in the terminal; the Markdown and HTML outputs list more."""
_VERDICT_STYLE = {"regression": "red", "improvement": "green", "no significant change": "dim"}
_WRITERS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}
Sides = tuple[str | None, str | None]
"""What ``--model-a``/``--model-b`` (or ``--variant-a``/``--variant-b``) name, if given."""


def _load(ref: str, db: Path | None) -> RunResult:
    """A run from a results file (``.json``/``.jsonl``) when `ref` is one, else from the store."""
    from promptum.reporting import load_run

    path = Path(ref)
    # A missing results file must say so, not be looked up in the store as a run id.
    if path.suffix.lower() in (".json", ".jsonl"):
        return load_run(path)
    return open_store(db).load(ref)


def _print_changes(
    console: Console, title: str, changes: list[CaseChange], must_pass: frozenset[str]
) -> None:
    if not changes:
        return
    console.print(f"  [bold]{title} ({len(changes)})[/]")
    for change in changes[:_SHOWN]:
        marked = " [bold](must pass)[/]" if change.case_id in must_pass else ""
        console.print(
            f"    {escape(change.case_id)}: {change.before.outcome} → {change.after.outcome}"
            + marked
        )
    if len(changes) > _SHOWN:
        console.print(f"    ... and {len(changes) - _SHOWN} more (write -o compare.html)")


def _print_pair(console: Console, pair: ModelComparison) -> None:
    from rich.table import Table

    from promptum.compare import figure_rows, pair_asr_lines, verdict_line

    table = Table(title=f"{escape(pair.a.label)} → {escape(pair.b.label)}", title_justify="left")
    for column in ("", "A", "B", "B − A"):
        table.add_column(column, justify="left" if not column else "right")
    for row in figure_rows(pair):
        table.add_row(*row)
    console.print(table)
    console.print(f"  [{_VERDICT_STYLE[pair.verdict]}]{verdict_line(pair)}[/]")
    for line in pair_asr_lines(pair):
        console.print(f"  {escape(line)}", highlight=False, soft_wrap=True)
    _print_changes(console, "Regressed", pair.of_kind("regressed"), pair.must_pass)
    _print_changes(console, "Fixed", pair.of_kind("fixed"), pair.must_pass)
    changed = pair.of_kind("changed")
    if changed:
        console.print(f"  Changed, same pass rate: {len(changed)} case(s)")
    for side in (pair.a, pair.b):
        if side.flaky:
            names = ", ".join(escape(rate.case_id) for rate in side.flaky[:_SHOWN])
            console.print(f"  Flaky on {escape(side.label)} ({len(side.flaky)}): {names}")
    console.print()


def _write(comparison: Comparison, gate: GateDecision | None, path: Path) -> None:
    from promptum.compare import comparison_html, comparison_markdown
    from promptum.errors import ConfigError

    kind = _WRITERS.get(path.suffix.lower())
    if kind is None:
        raise ConfigError(f"-o {path}: write a comparison as .md or .html")
    rendered = (
        comparison_markdown(comparison, gate)
        if kind == "markdown"
        else comparison_html(comparison, gate=gate)
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the comparison: {exc.strerror or exc}") from None


@click.command("compare")
@db_option
@click.argument("run_a", metavar="A")
@click.argument("run_b", metavar="[B]", required=False)
@click.option("--model-a", help="Compare only this model of A (with --model-b).")
@click.option("--model-b", help="…against this model of B (of A when B is not given).")
@click.option("--variant-a", help="Compare this prompt variant of A (with --variant-b)…")
@click.option("--variant-b", help="…against this variant of B (of A when B is not given).")
@click.option(
    "-o", "--output", "outputs", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the comparison: .md (for a pull request) or .html.",
)  # fmt: skip
@click.option(
    "--fail-on-regression", is_flag=True,
    help="Exit 1 when B regressed (for CI): a must-pass case regressed, more than "
    "--max-regressed cases regressed, or the pass rate fell significantly.",
)  # fmt: skip
@click.option(
    "--max-regressed", type=click.IntRange(min=0), metavar="N",
    # The default is promptum.compare.DEFAULT_MAX_REGRESSED, not imported here: `--help` stays
    # fast. A test keeps the two the same.
    help="With --fail-on-regression: regressed cases allowed per model [default: 1].",
)  # fmt: skip
@json_option("the comparison (with the gate's decision under --fail-on-regression)")
def compare_command(
    db: Path | None,
    run_a: str,
    run_b: str | None,
    model_a: str | None,
    model_b: str | None,
    variant_a: str | None,
    variant_b: str | None,
    outputs: tuple[Path, ...],
    fail_on_regression: bool,
    max_regressed: int | None,
    as_json: bool,
) -> None:
    """Compare run B against run A, model by model, on the cases they share.

    A and B are run ids (or prefixes, `latest`, `latest~1`) or results files written by
    `promptum run -o FILE.json`. With one run and --model-a/--model-b, two of its models are
    compared. Differences are called significant by an exact paired sign test (McNemar's
    test for single runs), so a case that wobbles is not a significant regression.

    With --fail-on-regression the gate also fails on small suites, where no test can be
    significant: when a case B marks must-pass regressed, or when more than --max-regressed
    cases of a model regressed.

    Exit codes: 0 compared (gate passed), 1 the gate failed with --fail-on-regression,
    2 invalid input.
    """
    if max_regressed is not None and not fail_on_regression:
        # Silently ignoring it would let a CI job believe it is gated.
        raise click.UsageError("--max-regressed sets the gate of --fail-on-regression; add it")
    _check_pairs(run_b, (model_a, model_b), (variant_a, variant_b))
    with exit_on_user_error():
        first = _load(run_a, db)
        second = first if run_b is None else _load(run_b, db)
        comparison = _compared(first, second, (model_a, model_b), (variant_a, variant_b))
        gate, allowed = _gated(comparison, max_regressed) if fail_on_regression else (None, None)
        for path in outputs:
            _write(comparison, gate, path)
    if as_json:
        _print_json(comparison, gate, allowed, outputs)
    else:
        _print_comparison(first, second, comparison, gate, outputs)
    raise SystemExit(EXIT_OK if gate is None or gate.passed else EXIT_REGRESSION)


def _check_pairs(run_b: str | None, models: Sides, variants: Sides) -> None:
    """Refuse options given without their partner, or that leave nothing to compare."""
    if (models[0] is None) != (models[1] is None):
        raise click.UsageError("give both --model-a and --model-b, or neither")
    if (variants[0] is None) != (variants[1] is None):
        raise click.UsageError("give both --variant-a and --variant-b, or neither")
    if run_b is None and models[0] is None and variants[0] is None:
        raise click.UsageError(
            "give a second run B, or two models (--model-a/--model-b) or two prompt variants "
            "(--variant-a/--variant-b) of A"
        )


def _compared(first: RunResult, second: RunResult, models: Sides, variants: Sides) -> Comparison:
    """B against A: on the models (or the variants) named, else on every model they share."""
    from promptum.compare import compare_runs, variant_pairs

    model_a, model_b = models
    pairs = None if model_a is None or model_b is None else [(model_a, model_b)]
    variant_a, variant_b = variants
    if variant_a is not None and variant_b is not None:
        pairs = variant_pairs(first, variant_a, second, variant_b, pairs)
    return compare_runs(first, second, pairs)


def _gated(comparison: Comparison, max_regressed: int | None) -> tuple[GateDecision, int]:
    """The gate of ``--fail-on-regression``, and the regressed cases it allows per model."""
    from promptum.compare import DEFAULT_MAX_REGRESSED, comparison_gate

    allowed = DEFAULT_MAX_REGRESSED if max_regressed is None else max_regressed
    return comparison_gate(comparison, allowed), allowed


def _print_json(
    comparison: Comparison, gate: GateDecision | None, allowed: int | None, outputs: Sequence[Path]
) -> None:
    """The comparison as ``--json`` prints it; stdout holds the JSON only."""
    from promptum.cli import _machine

    for path in outputs:
        click.echo(f"wrote {path}", err=True)
    _machine.print_json(_machine.comparison(comparison, gate, allowed))


def _print_comparison(
    first: RunResult,
    second: RunResult,
    comparison: Comparison,
    gate: GateDecision | None,
    outputs: Sequence[Path],
) -> None:
    """The comparison for people: what changed, model by model, and the gate's line."""
    from promptum.compare import prompt_changes

    console = make_console()
    console.print(
        f"Comparing B={escape(second.run_id)} against A={escape(first.run_id)} "
        "(95% intervals; significant when the paired sign test gives p < 0.05)"
    )
    for change in prompt_changes(first, second):
        console.print(f"[yellow]{escape(change)}[/]", soft_wrap=True)
    for line in comparison.unpaired:
        console.print(f"[yellow]{escape(line)}[/]", soft_wrap=True)
    console.print()
    for pair in comparison.models:
        _print_pair(console, pair)
    for path in outputs:
        console.print(f"wrote {path}")
    regressions = comparison.regressions
    if regressions:
        labels = ", ".join(escape(pair.b.label) for pair in regressions)
        console.print(f"[red]Significant regression:[/] {labels}")
    if gate is not None:
        # One line whatever the terminal's width: CI logs are searched for it.
        style = "green" if gate.passed else "red"
        console.print(f"[{style}]{escape(gate.line)}[/]", soft_wrap=True)
