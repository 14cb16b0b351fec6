"""The `promptum` command group; each command lives in its own module and is added here."""

from __future__ import annotations

import click

from promptum import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="promptum")
def main() -> None:
    """Test LLM prompts the way good teams test code."""
