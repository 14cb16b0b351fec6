"""The `answered` check: its grade says the provider answered without error, and no more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.checks import CheckDefinition, evaluate_checks
from promptum.cli import main
from promptum.values.completion import Completion
from tests.support.cli import usage_error, write
from tests.support.fault_server import Reply, fault_server


def test_it_passes_any_answer_and_says_only_that_one_came() -> None:
    [result] = evaluate_checks([CheckDefinition(type="answered")], Completion(text=""))
    assert result.passed
    assert result.description == "the provider answered without error"


def test_a_failed_call_is_no_answer() -> None:
    [result] = evaluate_checks(
        [CheckDefinition(type="answered")], Completion(text="", error="HTTP 500")
    )
    assert not result.passed
    assert result.reason == "the provider did not answer: HTTP 500"


def test_it_takes_no_value(tmp_path: Path) -> None:
    suite = write(
        tmp_path / "suite.yaml",
        "prompt: 'Hi {{ name }}'\ntest_cases:\n"
        "  - {id: a, vars: {name: Ada}, checks: [{type: answered, value: 1}]}\n",
    )
    assert "answered" in usage_error("validate", str(suite))


def test_a_run_passes_a_case_whose_model_answered_and_errs_on_one_that_did_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "models: [fault/m]\ntest_cases:\n"
        "  - {id: answers, query: hi, checks: [{type: answered}]}\n"
        "  - {id: fails, query: hi, checks: [{type: answered}]}\n",
        encoding="utf-8",
    )
    with fault_server() as server:
        monkeypatch.setenv("PROMPTUM_FAULT_BASE_URL", server.base_url)
        server.queue(Reply.ok(""), *[Reply.error(400, "bad request")] * 5)
        options = ["-c", "1", "--no-cache", "--no-store", "-o", "report.json"]
        CliRunner().invoke(main, ["run", str(suite), *options], catch_exceptions=False)
    results = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["results"]
    status = {result["case_id"]: result["status"] for result in results}
    assert status == {"answers": "pass", "fails": "error"}
    [grade] = next(r for r in results if r["case_id"] == "answers")["grades"]
    assert grade["description"] == "the provider answered without error"
