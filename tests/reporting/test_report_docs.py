"""docs/reports.md: the Python example runs as shown and the CLI example does what it says."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main

DOC = Path(__file__).parents[2] / "docs" / "reports.md"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_screenshot_shown_exists() -> None:
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", DOC.read_text(encoding="utf-8")):
        assert (DOC.parent / image).is_file(), image


@pytest.mark.slow
@pytest.mark.embedded_model
def test_python_and_cli_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    example, streamed = blocks("python")  # the second goes on from the first
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "example.py"
    script.write_text(example + streamed, encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")  # runs the local model for real
    for name in ("results.jsonl", "results.json", "report.html", "junit.xml", "results.csv"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert (tmp_path / "summary.md").read_text(encoding="utf-8").startswith("## ")
    assert len((tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    assert (tmp_path / "streamed.html").read_text(encoding="utf-8").startswith("<!doctype html>")

    commands = [
        line.removeprefix("$ promptum ").split()
        for block in blocks("console")
        for line in block.splitlines()
        if line.startswith("$ promptum report")
    ]
    assert len(commands) == 2
    for command in commands:
        outcome = CliRunner().invoke(main, command)
        assert outcome.exit_code == 0, outcome.output
    assert (tmp_path / "summary.txt").read_text(encoding="utf-8").startswith("## ")
