"""Every example that the docs show runs on the embedded model."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from promptum.reporting import load_run
from tests.support.plugins import install_plugin

EXAMPLES = Path(__file__).parents[2] / "examples"

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


@pytest.mark.parametrize(
    ("suite", "cases"),
    [("capitals.yaml", 5), ("ticket_triage.yaml", 3), ("judge_criteria.yaml", 3)],
)
def test_example_suites_run(tmp_path: Path, suite: str, cases: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", str(EXAMPLES / suite), "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert len(run.results) == cases
    assert all(r.status != "error" for r in run.results), [r.reasons for r in run.results]


def test_the_ticket_triage_cases_assert_fields_from_toml(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", str(EXAMPLES / "ticket_triage.yaml"),
         "--tag", "attack", "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    (result,) = load_run(tmp_path / "run.json").results
    assert result.case_id == "injection-priority"
    assert result.eval_result is not None
    assert [(d.field, d.op) for d in result.eval_result.details] == [
        ("category", "eq"),
        ("priority", "ne"),
        ("category", "ne"),
    ]
    assert [c.type for c in result.check_results] == ["response_model"]  # parsed into Ticket
    assert done.returncode == (0 if result.status == "pass" else 1)


def example_output(tmp_path: Path, script: str) -> tuple[list[str], list[str]]:
    """Run the example `script` in `tmp_path`, which must succeed; return the lines it printed
    and the names of the results it printed (`PASS name: ...`)."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return lines, [line.split()[1].rstrip(":") for line in lines if line[:4] in ("PASS", "FAIL")]


def test_the_python_api_example_runs(tmp_path: Path) -> None:
    lines, names = example_output(tmp_path, "python_api.py")
    assert names == ["capital", "arithmetic", "short-answer", "sentiment"]
    assert lines[-1].startswith("local/smollm2: Checks: ")


def test_the_run_suites_example_runs(tmp_path: Path) -> None:
    lines, names = example_output(tmp_path, "run_suites.py")
    assert names == ["capitals/france", "capitals/japan", "smoke/arithmetic"]
    assert "wrote report.html" in lines
    assert len((tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 3
    assert lines[-1].startswith("gate: ")
    assert not (EXAMPLES / "smoke.yaml").exists()  # the suite given as data is no file


def test_the_custom_check_example_runs_with_its_package_installed(tmp_path: Path) -> None:
    example = EXAMPLES / "custom_check"
    project = tomllib.loads((example / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # Installed as pip would (a dist-info declaring its entry points), without a build.
    site = tmp_path / "site"
    install_plugin(site, project["name"], project["entry-points"], version=project["version"])
    paths = [str(site), str(example / "src"), os.environ.get("PYTHONPATH", "")]
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", str(example / "suite.yaml"), "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert len(run.results) == 2
    for result in run.results:
        assert result.status != "error", result.reasons
        assert [(g.kind, g.name) for g in result.grades] == [
            ("custom", "max_words"),
            ("custom", "no_apology"),
            ("custom", "names_the_city"),
        ]


def test_the_support_bot_app_is_tested_as_a_target(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", str(EXAMPLES / "app" / "support.yaml"),
         "-o", "run.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    by_id = {r.case_id: r for r in run.results}
    assert set(by_id) == {"refund", "planted-instruction", "wants-a-person"}
    assert {r.model for r in run.results} == {"target:bot.py:answer"}
    assert all(r.status == "pass" for r in run.results), [r.reasons for r in run.results]
    assert "FREE-1000" not in by_id["planted-instruction"].completion.text
    (call,) = by_id["wants-a-person"].completion.tool_calls
    assert call.name == "create_ticket"
    assert call.error is None
