"""A model named twice is refused where it is written: a run plans one result per model, so a
second mention would be planned and never run (the run read as interrupted, exit 130)."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum import Prompt, Session
from promptum.errors import ConfigError
from promptum.suites import load_suite
from tests.suites.suite_problems import problems
from tests.support.cli import usage_error, write

TWICE = "'local/smollm2' is listed twice: list each model once"


def test_a_suite_and_a_case_naming_a_model_twice_are_located(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        models: [local/smollm2, local/smollm2]
        test_cases:
          - id: a
            query: hi
            models: [openai/m, local/smollm2, openai/m]
        """,
    )
    assert problems(path) == [
        f"{path}:1:1: models: {TWICE}",
        f"{path}:5:5: test_cases[0].models: 'openai/m' is listed twice: list each model once",
    ]


def test_validate_refuses_it_without_a_traceback(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "models: [local/smollm2, local/smollm2]\nquery: hi\n")
    assert TWICE in usage_error("validate", str(path))


def test_run_refuses_a_model_given_twice_before_running(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "test_cases:\n  - {id: a, query: hi}\n")
    output = usage_error("run", str(path), "-m", "local/smollm2", "-m", "local/smollm2")
    assert TWICE in output
    assert "Running" not in output


def test_a_session_and_a_prompt_refuse_it() -> None:
    with pytest.raises(ConfigError, match=f"^models: {TWICE}$"):
        Session(models=["local/smollm2", "local/smollm2"])
    with pytest.raises(ConfigError, match=f"models: {TWICE}$"):
        Session().add_test(
            Prompt(name="p", prompt="hi", model="local/smollm2", models=["local/smollm2"])
        )
    session = Session()
    with pytest.raises(ConfigError, match=f"^models: {TWICE}$"):
        session.override(models=["local/smollm2", "local/smollm2"])


def test_each_model_once_still_loads(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        models: [local/smollm2, openai/m]
        test_cases:
          - {id: a, query: hi, checks: [{type: max_length, value: 9}]}
        """,
    )
    (case,) = load_suite(path).cases
    assert case.models == ("local/smollm2", "openai/m")
