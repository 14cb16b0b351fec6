"""`promptum generate checks`: judge-only cases get the checks their expected behaviour states,
as a diff that applies and validates; the suite itself is never changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from promptum.generation import proposed_checks, proposed_expected
from tests.support.cli import invoke, write

SUITE = """\
name: support
models: [local/smollm2]
judge: {model: local/smollm2}
test_cases:
  # a comment the diff keeps
  - id: opposite
    query: What is the opposite of hot?
    expected_behavior: Answers "cold".
  - id: profile
    query: Give Ada's profile.
    expected_behavior: Returns it as JSON, in at most 200 characters.
  - id: graded
    query: What is 2+2?
    expected_behavior: Answers "4".
    checks: [{type: contains, value: "4"}]
  - id: vague
    query: Be nice.
    expected_behavior: Is friendly.
"""


def test_quoted_phrases_limits_and_json_are_proposed_and_nothing_else() -> None:
    assert proposed_checks('Says "Paris" and “la capitale”.', structured=False) == [
        {"type": "contains", "value": "Paris", "case_insensitive": True},
        {"type": "contains", "value": "la capitale", "case_insensitive": True},
    ]
    assert proposed_checks("JSON, no more than 80 characters", structured=False) == [
        {"type": "max_length", "value": 80},
        {"type": "is_valid_json"},
    ]
    assert proposed_checks("Answers as JSON.", structured=True) == []  # the schema checks it
    assert proposed_checks("Is polite and helpful.", structured=False) == []
    assert proposed_checks("Don't say it's over.", structured=False) == []  # apostrophes


def test_an_enumerated_value_the_behaviour_names_becomes_a_field_assertion() -> None:
    schema = {"properties": {"priority": {"enum": ["low", "high"]}, "team": {"type": "string"}}}
    assert proposed_expected("Marks the ticket high priority.", schema) == {"priority": "high"}
    assert proposed_expected("Either low or high.", schema) == {}  # two named: no guess
    assert proposed_expected("Marks it highly urgent.", schema) == {}  # whole words only


def test_the_diff_applies_with_git_and_the_suite_validates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = write("suite.yaml", SUITE)
    result = invoke("generate", "checks", suite, "-o", "checks.diff")
    assert result.exit_code == 0, result.output
    assert "3 proposed checks (or field assertions) for 2 cases" in result.output
    assert suite.read_text(encoding="utf-8") == SUITE  # never applied silently
    subprocess.run(["git", "apply", "checks.diff"], check=True, cwd=tmp_path)
    patched = suite.read_text(encoding="utf-8")
    assert "# a comment the diff keeps" in patched
    cases = {case["id"]: case for case in yaml.safe_load(patched)["test_cases"]}
    assert cases["opposite"]["checks"] == [
        {"type": "contains", "value": "cold", "case_insensitive": True}
    ]
    assert cases["profile"]["checks"] == [
        {"type": "max_length", "value": 200},
        {"type": "is_valid_json"},
    ]
    assert cases["graded"]["checks"] == [{"type": "contains", "value": "4"}]
    assert "checks" not in cases["vague"]
    assert invoke("validate", "suite.yaml").exit_code == 0


def test_a_suite_with_nothing_to_propose_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write("suite.yaml", SUITE.split("  - id: profile")[0].replace('"cold"', "cold"))
    result = invoke("generate", "checks", "suite.yaml")
    assert result.exit_code == 0
    assert "suite.yaml: no check to propose" in result.output


def test_a_suite_that_does_not_load_gets_a_located_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write("suite.yaml", "name: x\nmodels: 3\ntest_cases: []\n")
    result = invoke("generate", "checks", "suite.yaml")
    assert result.exit_code == 2
    assert "suite.yaml:2" in result.output
