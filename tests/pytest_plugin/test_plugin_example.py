"""The runnable example folder, run through pytest on the embedded model."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.store import RunStore

ROOT = Path(__file__).parents[2]
EXAMPLE = ROOT / "examples" / "with_pytest"


@pytest.mark.slow
@pytest.mark.embedded_model
def test_the_pytest_example_passes_on_the_embedded_model(tmp_path: Path) -> None:
    project = tmp_path / "example"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".promptum", ".pytest_cache"))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"],
        cwd=project, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    passed = [line.split()[0] for line in done.stdout.splitlines() if " PASSED " in line]
    assert passed == [
        "prompts/facts.yaml::facts/capital[local/smollm2]",
        "prompts/facts.yaml::facts/arithmetic[local/smollm2]",
        "test_answers.py::test_the_capital_of_france",
        "test_answers.py::test_colours[What",  # the id holds spaces
        "test_answers.py::test_any_text_can_be_graded",
    ]
    (run,) = RunStore(project / ".promptum" / "runs.sqlite").list_runs()
    assert (run.suite, run.total, run.passed) == ("facts", 2, 2)


def test_the_repositorys_own_test_run_collects_no_example() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert "tests/pytest_plugin/test_plugin_example.py::" in done.stdout, done.stdout[-2000:]
    assert "examples/" not in done.stdout
    assert "[local/smollm2]" not in done.stdout
