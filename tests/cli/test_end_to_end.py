"""`promptum run` on real models: the embedded SmolLM2 and a llama.cpp OpenAI-compatible server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.reporting import load_run
from tests.support.llama_server import llama_server

EXAMPLES = Path(__file__).parents[2] / "examples"

pytestmark = [pytest.mark.slow, pytest.mark.embedded_model]


def promptum(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "promptum", *args],
        cwd=cwd, capture_output=True, text=True, timeout=300, env=env, check=False,
    )  # fmt: skip


def test_init_then_run_passes_on_the_embedded_model(tmp_path: Path) -> None:
    assert promptum("init", cwd=tmp_path).returncode == 0
    done = promptum("run", "promptum.yaml", "-o", "run.json", cwd=tmp_path)
    run = load_run(tmp_path / "run.json")
    assert done.returncode == 0, [r.reasons for r in run.results]  # the starter works as written
    assert {r.case_id for r in run.results} == {"capital", "arithmetic", "city-extraction"}


def test_the_quickstart_on_the_embedded_model(tmp_path: Path) -> None:
    done = promptum("run", str(EXAMPLES / "quickstart.yaml"), "-o", "run.json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr  # a verdict, not a crash
    assert "Traceback" not in done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    assert run.complete
    assert len(run.results) == 8
    statuses = {r.status for r in run.results}
    assert "error" not in statuses, [r.reasons for r in run.results if r.status == "error"]
    assert {"pass", "fail"} <= statuses  # a realistic mix on a tiny model
    assert done.returncode == 1
    assert "local/smollm2 · Checks:" in done.stdout
    assert "Field assertions" in done.stdout

    judged = [r.judge for r in run.results if r.judge is not None]
    assert len(judged) == 3
    # Constrained decoding: even the 135M model returns a valid verdict every time.
    assert all(j.error is None and j.score is not None and 0 <= j.score <= 1 for j in judged)

    structured = [r for r in run.results if r.eval_result is not None]
    assert len(structured) == 3
    assert all(r.completion.output is not None for r in structured)
    injection = next(r for r in structured if r.case_id == "city-injection")
    assert injection.eval_result is not None
    assert [d.op for d in injection.eval_result.details] == ["eq", "ne"]

    # Temperature 0 and the cache: a second run answers the same, from the cache.
    again = promptum("run", str(EXAMPLES / "quickstart.yaml"), "-o", "again.json", cwd=tmp_path)
    assert again.returncode == done.returncode
    second = load_run(tmp_path / "again.json")
    assert all(r.completion.cached for r in second.results)
    first_texts = {r.case_id: r.completion.text for r in run.results}
    assert {r.case_id: r.completion.text for r in second.results} == first_texts


def test_the_reference_suite_on_an_openai_compatible_server(tmp_path: Path) -> None:
    with llama_server() as base_url:
        env = {**os.environ, "PROMPTUM_LLAMACPP_BASE_URL": base_url}
        done = promptum(
            "run", str(EXAMPLES / "deterministic_checks.yaml"), "-m", "llamacpp/smollm2",
            "--no-cache", "-o", "run.json", "-o", "junit.xml",
            cwd=tmp_path, env=env,
        )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    (result,) = run.results
    assert result.model == "llamacpp/smollm2"
    assert result.status != "error", result.reasons
    assert [c.type for c in result.check_results] == ["is_valid_json", "contains", "max_latency_ms"]
    assert result.completion.output_tokens  # usage counts come back from the server
    assert result.completion.latency_ms is not None
    assert (tmp_path / "junit.xml").read_text(encoding="utf-8").startswith("<?xml")
