"""`promptum validate`: load suites without calling a model; exit 0 when valid, 2 when not."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate_command(paths: tuple[Path, ...]) -> None:
    """Check suite files (and the case files they read) without calling a model."""
    from promptum.errors import PromptumError
    from promptum.suites import Suite, check_unique_ids, load_suite

    invalid = 0
    loaded: list[Suite] = []
    for path in paths:
        try:
            suite = load_suite(path)
        except PromptumError as exc:
            invalid += 1
            message = str(exc)  # most messages start with the file's own location
            where = "" if message.startswith(f"{path}:") else f"{path}: "
            click.echo(f"✗ {where}{message}", err=True)
            continue
        loaded.append(suite)
        checks = sum(len(case.checks) for case in suite.cases)
        click.echo(f"✓ {path}: {len(suite.cases)} cases, {checks} checks")
    try:
        check_unique_ids(loaded)  # `promptum run` with the same paths would refuse them
    except PromptumError as exc:
        invalid += 1
        click.echo(f"✗ {exc}", err=True)
    if invalid:
        noun = "file is" if invalid == 1 else "files are"
        click.echo(f"{invalid} {noun} invalid", err=True)
        raise SystemExit(2)
