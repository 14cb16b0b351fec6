"""The shown examples run: examples/model_client.py and the Python block of docs/models.md."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "model_client.py"


def _run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.mark.slow
@pytest.mark.embedded_model
def test_the_model_client_example_runs_and_its_rerun_is_cached(tmp_path: Path) -> None:
    first = _run(cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "Paris" in first.stdout
    assert "cached False" in first.stdout
    assert "output: City(name=" in first.stdout
    second = _run(cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "cached True" in second.stdout
    assert (tmp_path / ".promptum" / "cache.sqlite").is_file()


def test_the_example_says_which_key_is_missing(tmp_path: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    result = _run("openai/gpt-4o-mini", cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "error: model 'openai/gpt-4o-mini' needs an API key: "
        "set the OPENAI_API_KEY environment variable"
    )
    assert "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.embedded_model
def test_the_python_block_of_the_models_page_runs(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "models.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    script = tmp_path / "snippet.py"
    script.write_text(block)
    result = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("None")  # the text, then error None
    assert "Paris" in result.stdout
