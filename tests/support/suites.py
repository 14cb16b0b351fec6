"""Suites many tests start from, and loading one that must fail."""

from __future__ import annotations

import json
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

ACME_BOT = """\
system: You are the support bot of Acme.
test_cases:
  - id: refund
    query: How long do refunds take?
"""
"""Suite keys: Acme's support bot, a system prompt and nothing else, asked one question."""

TARGET_SUITE = "name: x\ntarget: app.py:f\n"
"""The head of a suite answered by `app.py:f` (the `folder` fixture of tests/suites)."""


def attacked_suite(
    path: Path, app_url: str, red_url: str, redteam: str, system: str = "You help customers."
) -> Path:
    """Write to `path` a one-case suite answered by `app/m` (served at `app_url`, told `system`)
    whose `redteam` section (a YAML mapping) may attack with `red/m` (served at `red_url`)."""
    path.write_text(
        f"""\
models: [app/m]
endpoints:
  app: {{base_url: "{app_url}"}}
  red: {{base_url: "{red_url}"}}
system: {json.dumps(system)}
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
