"""A run imports only the code it uses: no report's when it writes none (a warm re-run), no
batch API's or Anthropic provider's when it calls OpenAI's protocol live."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from promptum.cli import main
from tests.support.fault_server import FaultServer
from tests.support.imports import imported_by_command

# Imported by `-o FILE` (and by a failed conversation's turn in the summary), else not needed:
# ~15 ms of a ~0.6 s warm-cache re-run.
_REPORTS = ("promptum.reporting", "promptum.reporting._registry", "promptum.comparison_figures")
# Imported by a run that batches (`--batch`, `batch: true`) or calls Anthropic: ~1.3 MB of a
# large suite's start-up memory otherwise.
_BATCHES = (
    "promptum.providers._batch",
    "promptum.providers._batch_apis",
    "promptum.providers._anthropic",
)


def _suite(check: str) -> None:
    Path("suite.yaml").write_text(
        "models: [fault/m]\ntest_cases:\n"
        f"  - {{id: a, query: Say hello., checks: [{{type: contains, value: {check}}}]}}\n"
    )


def test_a_run_without_reports_imports_none_of_their_code(server: FaultServer) -> None:
    _suite("Hello")
    imported, output = imported_by_command(["run", "suite.yaml"], Path.cwd(), _REPORTS)
    assert "1 result" in output  # it did run
    assert "all passed" in output
    assert "recorded as run" in output
    assert server.requests
    assert imported == []


def test_a_live_run_imports_neither_batch_apis_nor_the_anthropic_provider(
    server: FaultServer,
) -> None:
    _suite("Hello")
    arguments = ["run", "suite.yaml", "--no-store"]
    imported, output = imported_by_command(arguments, Path.cwd(), (*_BATCHES, "promptum.runner"))
    assert "all passed" in output
    assert server.requests
    assert imported == ["promptum.runner"]  # the run machinery was loaded; the batches not


def test_its_failures_are_still_listed_with_their_reasons(server: FaultServer) -> None:
    _suite("Goodbye")
    done = CliRunner().invoke(main, ["run", "suite.yaml", "--no-store"])
    assert done.exit_code == 1, done.output
    summary = done.output.split("Failures (1)\n", 1)[1]
    assert summary.startswith("FAIL suite/a (fault/m)")
    assert "    - contains: expected to contain 'Goodbye'" in summary  # its reason, as before


def test_a_report_asked_for_is_still_written(server: FaultServer) -> None:
    _suite("Hello")
    arguments = ["run", "suite.yaml", "--summary-md", "s.md"]
    imported, output = imported_by_command(arguments, Path.cwd(), _REPORTS)
    assert "wrote s.md" in output
    assert Path("s.md").read_text().strip()
    assert "promptum.reporting" in imported
