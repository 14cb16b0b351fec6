"""The `promptum` command group; each command lives in its own module, named here."""

from __future__ import annotations

import click

from promptum.cli._commands import LazyGroup
from promptum.cli._stdout import outlive_the_reader

# Each command's module is imported when the command runs (or `--help` lists it): a command
# imports what it needs, and `promptum validate` none of what `run` or `view` need.
_COMMANDS = {
    "run": "promptum.cli._run:run_command",
    "validate": "promptum.cli._validate:validate_command",
    "init": "promptum.cli._init:init_command",
    "schema": "promptum.cli._schema:schema_command",
    "report": "promptum.cli._report:report_command",
    "models": "promptum.cli._models:models_command",
    "runs": "promptum.cli._runs:runs_command",
    "compare": "promptum.cli._compare:compare_command",
    "view": "promptum.cli._view:view_command",
    "generate": "promptum.cli._generate:generate_command",
    "import": "promptum.cli._import:import_command",
    "redteam": "promptum.cli._redteam:redteam_command",
    "judge": "promptum.cli._judge:judge_command",
}


@click.group(
    cls=LazyGroup,
    lazy_commands=_COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
)
# The version is looked up only for --version: importlib.metadata costs ~60 ms to import.
@click.version_option(package_name="promptum", prog_name="promptum")
def main() -> None:
    """Test LLM prompts the way good teams test code."""
    outlive_the_reader()
