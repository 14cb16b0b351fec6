"""A project for the plugin's tests to run pytest in: suites answered by the fault servers."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from tests.support.fault_server import FaultServer

VERDICT = '{"score": 9, "reason": "Names Paris."}'
"""What the fault server answers every call: a judge's verdict, and a response to check."""

SUITE = """\
name: demo
models: [fault/m]
judge: {model: fault/judge, threshold: 0.7}
test_cases:
  - id: passes
    query: Capital of France?
    tags: [smoke]
    checks:
      - {type: contains, value: score}
  - id: fails
    query: Capital of Italy?
    must_pass: true
    checks:
      - {type: contains, value: Rome}
  - id: judged
    query: Capital of Spain?
    expected_behavior: Names Madrid
  - id: judge-down
    query: Capital of Japan?
    expected_behavior: Names Tokyo
    judge: {model: down/judge}
  - id: model-down
    query: Capital of Peru?
    models: [down/m]
"""
"""Every outcome at once: a pass, a failed check, a judged pass, a judge that cannot be
reached (error) and a model that cannot be reached (error)."""


@dataclass
class Servers:
    ok: FaultServer
    """``fault/...``: answers every call with `VERDICT`."""
    down: FaultServer
    """``down/...``: refuses every call (HTTP 401, not retried)."""


def write_project(
    pytester: pytest.Pytester,
    suites: dict[str, str] | None = None,
    ini: str = "promptum_suites = prompts/*.yaml",
) -> None:
    """A project with suites under prompts/ and a pytest.ini holding `ini`."""
    for name, text in (suites if suites is not None else {"demo.yaml": SUITE}).items():
        path = pytester.path / "prompts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    pytester.makeini("[pytest]\n" + ini + "\n")
