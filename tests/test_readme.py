"""What the README shows runs: its suite validates and its Python example passes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main

README = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")


def block(language: str) -> str:
    found = re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)
    assert len(found) == 1, f"expected one {language} block in the README"
    return str(found[0])


def test_the_readme_suite_is_valid(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(block("yaml"), encoding="utf-8")
    done = CliRunner().invoke(main, ["validate", str(suite)])
    assert done.exit_code == 0, done.output


@pytest.mark.slow
@pytest.mark.embedded_model
def test_the_readme_python_example_passes_on_the_embedded_model(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", block("python")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1.0 {'local/smollm2': CheckStats(passed=1, total=1)}")
