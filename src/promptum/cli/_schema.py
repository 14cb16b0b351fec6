"""`promptum schema`: print the JSON Schema of the suite format, for editors."""

from __future__ import annotations

import json
from pathlib import Path

import click

from promptum.cli._console import write_or_exit


@click.command("schema")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), help="Write to a file instead of stdout."
)
def schema_command(output: Path | None) -> None:
    """Print the JSON Schema of suite files.

    Editors with the YAML language server check and complete a suite that starts with
    ``# yaml-language-server: $schema=promptum.schema.json``.
    """
    from promptum.suites import suite_json_schema

    text = json.dumps(suite_json_schema(), indent=2) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        write_or_exit(output, text)
        click.echo(f"wrote {output}")
