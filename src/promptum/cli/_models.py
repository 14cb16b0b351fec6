"""`promptum models`: which model ids can be called here, and what to do about the others."""

from __future__ import annotations

import click

from promptum.cli._console import escape, make_console
from promptum.cli._options import json_option


@click.command("models")
@click.argument("model_ids", nargs=-1, metavar="[MODEL]...")
@json_option("the providers (or the check of each MODEL)")
def models_command(model_ids: tuple[str, ...], as_json: bool) -> None:
    """List providers and whether each is usable; with MODEL ids, check those (exit 1 if not)."""
    if model_ids:
        _check(model_ids, as_json)
        return
    from promptum.providers import provider_statuses

    statuses = provider_statuses()
    if as_json:
        from promptum.cli import _machine

        _machine.print_json(_machine.providers(statuses))
        return
    from rich.table import Table

    table = Table("provider", "example model id", "status", "where / what to do")
    for status in statuses:
        mark = "[green]ready[/]" if status.ready else "[yellow]unavailable[/]"
        # Text, not markup: a detail such as "pip install 'promptum[anthropic]'" has brackets.
        table.add_row(escape(status.prefix), escape(status.example), mark, escape(status.detail))
    console = make_console()
    console.print(table)
    console.print(
        "Ready means the package and key are present; no server was contacted.\n"
        "Named OpenAI-compatible endpoints: 'endpoints:' in a suite, or "
        "PROMPTUM_<NAME>_BASE_URL (+ PROMPTUM_<NAME>_API_KEY) for '<name>/<model>' ids.",
        markup=False,
    )


def _check(model_ids: tuple[str, ...], as_json: bool) -> None:
    from promptum.errors import ProviderUnavailableError
    from promptum.providers import ModelClient

    client = ModelClient()
    problems: list[tuple[str, str | None]] = []
    for model in model_ids:
        try:
            client.check_model(model)
        except ProviderUnavailableError as exc:
            problems.append((model, str(exc)))
        else:
            problems.append((model, None))
    if as_json:
        from promptum.cli import _machine

        _machine.print_json(_machine.model_checks(problems))
    else:
        for model, problem in problems:
            if problem is None:
                click.echo(f"✓ {model}")
            else:
                click.echo(f"✗ {problem}", err=True)
    if any(problem is not None for _, problem in problems):
        raise SystemExit(1)
