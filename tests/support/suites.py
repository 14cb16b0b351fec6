"""Suites many tests start from, and loading one that must fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import load_suite

JUDGED_BY_FAULT = "models: [fault/m]\njudge: {model: fault/judge, threshold: 0.5}\n"
"""Suite keys: cases answered by `fault/m` and judged by `fault/judge` (fault server models)."""

GREETING_SUITE = """\
models: [openai/gpt-4o-mini]
test_cases:
  - id: greet
    query: Say hello.
    checks:
      - {type: contains, value: hello}
"""
"""A one-case suite on an OpenAI model, graded by a check alone."""

TARGET_SUITE = "name: x\ntarget: app.py:f\n"
"""The head of a suite answered by `app.py:f` (the `folder` fixture of tests/suites)."""


def attacked_suite(path: Path, app_url: str, red_url: str, redteam: str) -> Path:
    """Write to `path` a one-case suite answered by `app/m` (served at `app_url`) whose
    `redteam` section (a YAML mapping) may attack with `red/m` (served at `red_url`)."""
    path.write_text(
        f"""\
models: [app/m]
endpoints:
  app: {{base_url: "{app_url}"}}
  red: {{base_url: "{red_url}"}}
system: You help customers.
test_cases: [{{id: hello, query: Hello?}}]
redteam: {redteam}
""",
        encoding="utf-8",
    )
    return path


def load_error(path: Path) -> str:
    """The message of the `ConfigError` that loading the suite at `path` must raise."""
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return str(caught.value)
