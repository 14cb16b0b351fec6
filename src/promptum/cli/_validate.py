"""`promptum validate`: load suites without calling a model; exit 0 when valid, 2 when not."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate_command(paths: tuple[Path, ...]) -> None:
    """Check suite files (and the case files they read) without calling a model."""
    from promptum.errors import PromptumError
    from promptum.suites import load_suite

    invalid = 0
    for path in paths:
        try:
            suite = load_suite(path)
        except PromptumError as exc:
            invalid += 1
            click.echo(f"✗ {path}: {exc}", err=True)
            continue
        checks = sum(len(case.checks) for case in suite.cases)
        click.echo(f"✓ {path}: {len(suite.cases)} cases, {checks} checks")
    if invalid:
        noun = "file is" if invalid == 1 else "files are"
        click.echo(f"{invalid} {noun} invalid", err=True)
        raise SystemExit(2)
