"""examples/variants.yaml: two prompt variants on the embedded model, compared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run

EXAMPLE = Path(__file__).parents[2] / "examples" / "variants.yaml"

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


def _promptum(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "promptum", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_the_variants_example_runs_both_variants_and_compares_them(tmp_path: Path) -> None:
    done = _promptum(tmp_path, "run", str(EXAMPLE), "-o", "run.json", "-o", "report.html")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert len(run.results) == 5 * 2
    assert all(r.status != "error" for r in run.results), [r.reasons for r in run.results]
    columns = ["local/smollm2 · question", "local/smollm2 · terse"]
    assert list(run.stats()) == columns
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert all(column in html for column in columns)
    assert "Prompt variants</h2>" in html
    assert "on local/smollm2: " in done.stdout  # the best variant, or a tie, is named

    compared = _promptum(
        tmp_path, "compare", "latest", "--variant-a", "question", "--variant-b", "terse", "--json"
    )
    assert compared.returncode == 0, compared.stdout + compared.stderr
    (pair,) = json.loads(compared.stdout)["pairs"]
    assert (pair["a"]["column"], pair["b"]["column"], pair["shared"]) == (*columns, 5)
