"""Every suite under examples/ gives the same outcomes through each way of running it.

The same copy of examples/ runs through `promptum run`, the pytest plugin and
`promptum run --executor ray`; each writes JSONL (pytest's run through the run store and
`promptum report`), and the outcome of every case × model × variant × repeat is compared.

All of it runs offline: the suites use the embedded model (SmolLM2, temperature 0), and
the support bot of examples/app is a Python target on that model. The first run calls the
models and fills the response cache; the other two answer model calls from it (the targets
run live everywhere), which keeps the test's cost at one pass of the model and makes checks
on a response's latency agree across runs. The custom check example's package is installed
into a folder on PYTHONPATH, as `pip install ./examples/custom_check` would. The Ray run is
made in a network namespace with only a loopback interface.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.plugins import install_plugin

EXAMPLES = Path(__file__).parents[1] / "examples"

pytestmark = pytest.mark.slow

Outcomes = dict[tuple[str, str, str, str, int], str]
"""(suite, case, model, variant, repeat) -> pass, fail or error."""


def _outcomes(report: Path) -> Outcomes:
    outcomes: Outcomes = {}
    for line in report.read_text(encoding="utf-8").splitlines():
        result = json.loads(line)
        key = (
            result["suite"],
            result["case_id"],
            result["model"],
            result["variant"] or "",
            result["repeat"],
        )
        assert key not in outcomes, f"{key} twice in {report.name}"
        outcomes[key] = result["status"]
    return outcomes


def _environment(tmp_path: Path) -> dict[str, str]:
    """This environment, with the custom check example's package installed on PYTHONPATH."""
    example = EXAMPLES / "custom_check"
    project = tomllib.loads((example / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = tmp_path / "site"
    install_plugin(site, project["name"], project["entry-points"], version=project["version"])
    paths = [str(site), str(example / "src"), os.environ.get("PYTHONPATH", "")]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    environment.pop("PROMPTUM_DB", None)
    return environment


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1200, check=False
    )
    # 1: some cases fail, as the examples mean some to (a small model); never 2 or a crash.
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def test_every_example_suite_has_the_same_outcomes_on_the_cli_pytest_and_ray(
    tmp_path: Path,
) -> None:
    pytest.importorskip("ray")
    project = tmp_path / "examples"
    ignored = shutil.ignore_patterns(".promptum", ".pytest_cache", "__pycache__")
    shutil.copytree(EXAMPLES, project, ignore=ignored)
    suites = sorted(str(path.relative_to(project)) for path in project.rglob("*.yaml"))
    env = _environment(tmp_path)
    promptum = [sys.executable, "-m", "promptum"]

    _run([*promptum, "run", ".", "--no-store", "-o", "cli.jsonl"], project, env)

    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    plugin = ["-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist"]
    pytest_run = [sys.executable, "-m", "pytest", *plugin, "--promptum-suites", "**/*.yaml"]
    _run([*pytest_run, *suites], project, env)
    _run([*promptum, "report", "latest", "-o", "pytest.jsonl"], project, env)

    # Only loopback exists in the namespace: whatever Ray does, nothing leaves the machine.
    isolated = ["unshare", "--map-root-user", "--net", "sh", "-c", 'ip link set lo up && "$@"']
    ray = [*promptum, "run", ".", "--executor", "ray", "--no-store", "-o", "ray.jsonl"]
    _run([*isolated, "sh", *ray], project, env)

    cli = _outcomes(project / "cli.jsonl")
    assert len({suite for suite, *_ in cli}) == len(suites), f"a suite of {suites} did not run"
    assert {"pass", "fail"} <= set(cli.values())
    assert _outcomes(project / "pytest.jsonl") == cli
    assert _outcomes(project / "ray.jsonl") == cli
