"""Each command imports what it uses: `promptum validate` none of what a run or a report needs."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from promptum.cli import main
from tests.support.fault_server import FaultServer
from tests.support.imports import imported_by_command
from tests.support.suites import GREETING_SUITE

# What a run, a report or another command needs and checking a suite does not. Each one here
# was imported by `promptum validate` before its commands were loaded when used (issue 28).
_NOT_FOR_VALIDATE = (
    "promptum.cli._run",
    "promptum.cli._compare",
    "promptum.cli._runs",
    "promptum.cli._view",
    "promptum.cli._report",
    "promptum.runner._runner",
    "promptum.runner._journal",
    "promptum.providers._client",
    "promptum.values.run_result",
    "promptum.values.tally",
    "promptum.sinks",
    "promptum.store",
    "promptum.reporting",
    "promptum.session",
    "promptum.comparison_figures",
    "promptum.viewer",
    "sqlite3",
    "asyncio",
)

_SUITE = (
    GREETING_SUITE
    + """\
  - id: part
    query: Name a part of a plant.
    expected_behavior: names a part of a plant
"""
)


# What only other commands need: `promptum run` (a suite without a judge) imports none of it.
_NOT_FOR_RUN = (
    "promptum.cli._compare",
    "promptum.cli._view",
    "promptum.cli._report",
    "promptum.cli._schema",
    "promptum.cli._init",
    "promptum.cli._import",
    "promptum.cli._redteam",
    "promptum.cli._models",
    "promptum.compare",
    "promptum.viewer",
    "promptum.importers",
    "promptum.values.calibration",
    # A run without prompt variants or red-team cases: its JSON and JUnit reports neither.
    "promptum.comparison_figures",
    "promptum.reporting._asr",
    "promptum.redteam._goals",
)


def test_validate_imports_no_runner_store_reports_or_other_command(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(_SUITE)
    imported, output = imported_by_command(["validate", "suite.yaml"], tmp_path, _NOT_FOR_VALIDATE)
    assert "✓ suite.yaml: 2 cases, 1 check" in output  # it did load and check the suite
    assert imported == []


def test_run_imports_no_other_command(server: FaultServer) -> None:
    Path("suite.yaml").write_text(
        "models: [fault/m]\ntest_cases:\n"
        "  - {id: a, query: Say hello., checks: [{type: contains, value: Hello}]}\n"
    )
    arguments = ["run", "suite.yaml", "-o", "r.json", "-o", "junit.xml"]
    imported, output = imported_by_command(arguments, Path.cwd(), _NOT_FOR_RUN)
    assert "1 result" in output  # it did run, and report
    assert Path("r.json").is_file()
    assert server.requests  # against the server: the model was called
    assert imported == []


def test_help_lists_every_command_with_its_summary() -> None:
    done = CliRunner().invoke(main, ["--help"])
    assert done.exit_code == 0, done.output
    listed = done.output.split("Commands:\n", 1)[1]
    names = [line.split()[0] for line in listed.splitlines() if line.strip()]
    assert names == sorted(names)
    assert {"run", "validate", "compare", "view", "runs", "judge", "import"} <= set(names)
    assert "  validate  Check suite files (and the case files they read)" in listed


def test_every_listed_name_loads_the_command_of_that_name() -> None:
    context = click.Context(main)
    names = main.list_commands(context)
    assert len(names) == 13
    for name in names:
        command = main.get_command(context, name)
        assert isinstance(command, click.Command)
        assert command.name == name


def test_an_unknown_command_suggests_the_closest_one() -> None:
    done = CliRunner().invoke(main, ["vaildate", "suite.yaml"])
    assert done.exit_code == 2
    assert "No such command 'vaildate'. Did you mean 'validate'?" in done.output


def test_a_group_command_runs_its_subcommand(tmp_path: Path) -> None:
    done = CliRunner().invoke(main, ["runs", "list", "--db", str(tmp_path / "runs.sqlite")])
    assert "runs.sqlite: no run store yet" in done.output  # `runs list` itself answered
    assert done.exit_code == 2
