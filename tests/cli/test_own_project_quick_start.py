"""The README's quick start for one's own project: the extras exist, `init` writes what runs."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _commands() -> list[list[str]]:
    (block,) = re.findall(r"```console\n(.*?)```", README, flags=re.S)
    return [
        shlex.split(line.removeprefix("$ "), comments=True)
        for line in block.splitlines()
        if line.startswith("$ ")
    ]


def test_the_readme_installs_promptum_with_extras_it_has() -> None:
    install, *_ = _commands()
    assert install[:2] == ["pip", "install"]
    found = re.fullmatch(r".*/(\w+)\[([\w,-]+)\]", install[2])
    assert found is not None, install
    name, extras = found.groups()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert name == project["name"]
    assert set(extras.split(",")) <= set(project["optional-dependencies"])


def test_the_readme_init_writes_the_suite_it_then_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, init, run = _commands()
    monkeypatch.chdir(tmp_path)
    assert init[0] == run[0] == "promptum"
    written = CliRunner().invoke(main, init[1:])
    assert written.exit_code == 0, written.output
    assert run[1] == "run"
    assert Path(run[2]).is_file()
    checked = CliRunner().invoke(main, ["validate", run[2]])
    assert checked.exit_code == 0, checked.output
