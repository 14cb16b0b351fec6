"""`promptum models`: which model ids can be called here, and what to do about the others."""

from __future__ import annotations

import click


@click.command("models")
@click.argument("model_ids", nargs=-1, metavar="[MODEL]...")
def models_command(model_ids: tuple[str, ...]) -> None:
    """List providers and whether each is usable; with MODEL ids, check those (exit 1 if not)."""
    if model_ids:
        _check(model_ids)
        return
    from rich.console import Console
    from rich.table import Table

    from promptum.providers import provider_statuses

    table = Table("provider", "example model id", "status", "where / what to do")
    for status in provider_statuses():
        mark = "[green]ready[/]" if status.ready else "[yellow]unavailable[/]"
        table.add_row(status.prefix, status.example, mark, status.detail)
    console = Console()
    console.print(table)
    console.print(
        "Ready means the package and key are present; no server was contacted.\n"
        "Named OpenAI-compatible endpoints: 'endpoints:' in a suite, or "
        "PROMPTUM_<NAME>_BASE_URL (+ PROMPTUM_<NAME>_API_KEY) for '<name>/<model>' ids.",
        markup=False,
    )


def _check(model_ids: tuple[str, ...]) -> None:
    from promptum.errors import ProviderUnavailableError
    from promptum.providers import ModelClient

    client = ModelClient()
    unusable = 0
    for model in model_ids:
        try:
            client.check_model(model)
        except ProviderUnavailableError as exc:
            unusable += 1
            click.echo(f"✗ {exc}", err=True)
        else:
            click.echo(f"✓ {model}")
    if unusable:
        raise SystemExit(1)
