"""The `promptum` command group; each command lives in its own module and is added here."""

from __future__ import annotations

import click

from promptum.cli._compare import compare_command
from promptum.cli._import import import_command
from promptum.cli._init import init_command
from promptum.cli._judge import judge_command
from promptum.cli._models import models_command
from promptum.cli._redteam import redteam_command
from promptum.cli._report import report_command
from promptum.cli._run import run_command
from promptum.cli._runs import runs_command
from promptum.cli._schema import schema_command
from promptum.cli._validate import validate_command
from promptum.cli._view import view_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
# The version is looked up only for --version: importlib.metadata costs ~60 ms to import.
@click.version_option(package_name="promptum", prog_name="promptum")
def main() -> None:
    """Test LLM prompts the way good teams test code."""


main.add_command(run_command)
main.add_command(validate_command)
main.add_command(init_command)
main.add_command(schema_command)
main.add_command(report_command)
main.add_command(models_command)
main.add_command(runs_command)
main.add_command(compare_command)
main.add_command(view_command)
main.add_command(import_command)
main.add_command(redteam_command)
main.add_command(judge_command)
