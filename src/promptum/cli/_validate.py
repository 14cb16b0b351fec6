"""`promptum validate`: load suites without calling a model; exit 0 when valid, 2 when not."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from promptum.cli._console import counted

if TYPE_CHECKING:
    from promptum.suites import CaseStats, Suite


def _shown(path: Path) -> str:
    """A path relative to the working directory when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _python_line(suite: Suite) -> str | None:
    """The Python modules the suite imports: code a reviewer reads like a conftest.py."""
    if not suite.python_imports:
        return None
    modules = ", ".join(
        f"{item.module} ({_shown(item.path)})" if item.path else item.module
        for item in suite.python_imports
    )
    return f"  imports Python: {modules}"


def _model_notes(suite: Suite, model_ids: Iterable[str]) -> list[str]:
    """What this machine lacks to call the suite's models: keys, extras (not suite mistakes)."""
    from promptum.errors import ProviderUnavailableError
    from promptum.providers import resolve

    notes = []
    for model_id in model_ids:  # targets are not among them: they resolved when loaded
        try:
            resolve(model_id, suite.endpoints)
        except ProviderUnavailableError as exc:
            notes.append(f"  note: {exc}")
    return notes


def _header_notes(stats: CaseStats) -> list[str]:
    """What this machine lacks to call the suite's HTTP targets: their header variables."""
    return [
        f"  note: target {target!r} sends a header from {variable}, which is not set here: "
        "every case of it would be an error"
        for variable, target in stats.header_variables.items()
        if not os.environ.get(variable)
    ]


def _ungraded_lines(suite: Suite, stats: CaseStats) -> list[str]:
    """A warning naming the cases nothing grades: a run makes each an error, never a pass."""
    if not stats.ungraded:
        return []
    count = stats.ungraded // max(1, len(suite.variants))  # each case is built per variant
    shown = stats.ungraded_shown
    each = "it" if count == 1 else "each"
    lines = [f"  warning: nothing grades {counted(count, 'case')}, so a run makes {each} an error:"]
    lines += [f"    {where}: {fix}" for where, fix in shown.items()]
    if count > len(shown):
        lines.append(f"    and {count - len(shown)} more")
    return lines


def _unpriced_lines(suite: Suite, stats: CaseStats) -> list[str]:
    """A warning for each model a cost bound applies to that has no price: it always fails."""
    from promptum.providers import price_for

    return [
        f"  warning: {where}: max_cost_usd bounds the cost of {model}, which has no price, so "
        "every answer of it fails the bound; give its price under `pricing:` (USD per million "
        "tokens)"
        for model, where in stats.cost_bounded.items()
        if price_for(model, suite.pricing, suite.endpoints) is None
    ]


def _counts(suite: Suite, stats: CaseStats) -> str:
    """Its cases and checks; and the results a run makes, when variants or models multiply.

    The checks are those a run counts (``Checks: N/M passed``): the written ones, and a
    response's fit to its `response_model`, which is graded as a check too.
    """
    variants = max(1, len(suite.variants))
    # Each case is built once per variant, with the same checks.
    cases = len(suite.cases) // variants
    written, schemas = stats.checks // variants, stats.schemas // variants
    # A simulated user may reach its goal before its last turn: fewer turns, fewer checks.
    most = "up to " if stats.simulated else ""
    line = f"{counted(cases, 'case')}, {most}{counted(written + schemas, 'check')}"
    notes = []
    if schemas:
        notes.append(f"{written} written, {counted(schemas, 'response schema')}")
    if stats.scripted or stats.simulated:
        notes.append(_conversation_counts(stats))
    if notes:
        line += " (" + "; ".join(notes) + ")"
    if stats.results == cases:
        return line
    factors = []
    if len(suite.variants) > 1:
        factors.append(counted(len(suite.variants), "prompt variant"))
    if len(stats.answering) > 1:
        factors.append(counted(len(stats.answering), "model"))
    if stats.most_repeats > 1:
        factors.append(f"repeats up to {stats.most_repeats}")
    return f"{line}; {counted(stats.results, 'result')} a run ({', '.join(factors)})"


def _conversation_counts(stats: CaseStats) -> str:
    """The conversations among a suite's cases: scripted (with their turns) and simulated."""
    parts = []
    if stats.scripted:
        parts.append(f"{counted(stats.scripted, 'conversation')} of {counted(stats.turns, 'turn')}")
    if stats.simulated:
        parts.append(f"{stats.simulated} with a simulated user")
    return ", ".join(parts)


def _variant_names(suites: Iterable[Suite]) -> list[str]:
    return [name for suite in suites for name in suite.variants]


@click.command("validate")
# Not `readable`: a file that cannot be read is reported by loading it, with the others.
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path, readable=False))
@click.option(
    "-p", "--prompt", "prompts", multiple=True, metavar="VARIANT",
    help="Check that the suites have this prompt variant, as `run -p` needs (repeatable).",
)  # fmt: skip
def validate_command(paths: tuple[Path, ...], prompts: tuple[str, ...]) -> None:
    """Check suite files (and the case files they read) without calling a model."""
    from promptum.errors import PromptumError
    from promptum.suites import check_unique_ids, find_suites, unknown_variant

    try:
        found = find_suites(paths)
    except PromptumError as exc:
        click.echo(f"✗ {exc}", err=True)
        raise SystemExit(2) from None
    for skipped, reason in found.skipped:
        click.echo(f"- {skipped}: skipped, {reason}")
    loaded: list[Suite] = []
    for path in found.suites:  # every path is checked: one broken file hides no other
        suite = _checked_suite(path, found.names.get(path))
        if suite is not None:
            loaded.append(suite)
    invalid = len(found.suites) - len(loaded)
    try:
        check_unique_ids(loaded)  # `promptum run` with the same paths would refuse them
    except PromptumError as exc:
        invalid += 1
        click.echo(f"✗ {exc}", err=True)
    # Checked against every suite's variants: one that did not load leaves its names unknown.
    variant_problem = None if invalid else unknown_variant(prompts, _variant_names(loaded))
    _exit_if_invalid(invalid, variant_problem)


def _checked_suite(path: Path, name: str | None) -> Suite | None:
    """The suite at `path`, said valid with its counts and notes; None, said why, if invalid."""
    from promptum.errors import PromptumError
    from promptum.suites import case_stats, load_suite

    try:
        suite = load_suite(path, check_models=True, name=name)
    except PromptumError as exc:
        message = str(exc)  # most messages start with the file's own location
        where = "" if message.startswith(f"{path}:") else f"{path}: "
        click.echo(f"✗ {where}{message}", err=True)
        return None
    # Tallied while loading: the cases of a CSV file are not read a second time.
    stats = case_stats(suite)
    click.echo(f"✓ {path}: {_counts(suite, stats)}")
    python = _python_line(suite)
    if python is not None:
        click.echo(python)
    for note in _model_notes(suite, stats.models) + _header_notes(stats):
        click.echo(note)
    if stats.unjudged is not None:
        click.echo(
            f"  note: expected_behavior is graded by a judge only (`judge:` in the suite, or "
            f"run --judge MODEL); without one the other grades alone decide ({stats.unjudged}, "
            "and any like it)"
        )
    for line in _ungraded_lines(suite, stats) + _unpriced_lines(suite, stats):  # still valid
        click.echo(line)
    return suite


def _exit_if_invalid(invalid: int, variant_problem: str | None) -> None:
    """Say how many files are invalid, or which variant is unknown, and exit 2; else return."""
    if variant_problem is not None:
        click.echo(f"✗ {variant_problem}", err=True)
    if invalid:
        noun = "file is" if invalid == 1 else "files are"
        click.echo(f"{invalid} {noun} invalid", err=True)
    if invalid or variant_problem is not None:
        raise SystemExit(2)
