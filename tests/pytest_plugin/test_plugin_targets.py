"""Suites with a `target:` (a Python function, an HTTP service) run under pytest as under `run`."""

from __future__ import annotations

import pytest

from tests.pytest_plugin.plugin_project import Servers, write_project
from tests.support.fault_server import Reply

APP = """\
from functools import cache


@cache
def _greeting() -> str:
    return "Hello"


def answer(query: str) -> str:
    return f"{_greeting()}, you asked: {query}"
"""

PYTHON_TARGET = """\
name: app
target: app.py:answer
test_cases:
  - id: greets
    query: Who are you?
    checks: [{type: contains, value: Hello}]
  - id: says-bye
    query: Are you leaving?
    checks: [{type: contains, value: Goodbye}]
"""

HTTP_TARGET = """\
name: service
target: {url: "URL/chat/completions", name: service, output: "$.choices[0].message.content"}
test_cases:
  - id: answers
    query: Ping?
    checks: [{type: contains, value: pong}]
  - id: down-the-line
    query: Ping again?
    checks: [{type: contains, value: pong}]
"""


def test_a_python_target_answers_the_items_of_its_suite(pytester: pytest.Pytester) -> None:
    write_project(pytester, {"app.yaml": PYTHON_TARGET})
    (pytester.path / "prompts" / "app.py").write_text(APP, encoding="utf-8")
    result = pytester.runpytest("-v", "-p", "no:randomly", "--promptum-no-store")
    result.stdout.fnmatch_lines(
        [
            "prompts/app.yaml::app/greets[[]target:app.py:answer[]] PASSED*",
            "prompts/app.yaml::app/says-bye[[]target:app.py:answer[]] FAILED*",
        ]
    )
    result.assert_outcomes(passed=1, failed=1)
    assert "none is declared" not in result.stdout.str()


def test_an_http_target_answers_and_its_failure_is_an_error(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    servers.ok.queue(Reply.ok("pong"), Reply.error(401, "bad key"))
    write_project(pytester, {"service.yaml": HTTP_TARGET.replace("URL", servers.ok.base_url)})
    result = pytester.runpytest("-v", "-p", "no:randomly", "--promptum-no-store")
    result.stdout.fnmatch_lines(
        [
            "prompts/service.yaml::service/answers[[]target:service[]] PASSED*",
            "prompts/service.yaml::service/down-the-line[[]target:service[]] ERROR*",
        ]
    )
    result.assert_outcomes(passed=1, errors=1)


def test_two_suites_naming_different_targets_alike_cannot_run_together(
    pytester: pytest.Pytester,
) -> None:
    other = PYTHON_TARGET.replace("name: app", "name: other").replace(
        "target: app.py:answer", "target: {function: other.py:answer, name: app.py:answer}"
    )
    write_project(pytester, {"app.yaml": PYTHON_TARGET, "other.yaml": other})
    (pytester.path / "prompts" / "app.py").write_text(APP, encoding="utf-8")
    (pytester.path / "prompts" / "other.py").write_text(APP, encoding="utf-8")
    result = pytester.runpytest("--collect-only", "-q")
    result.stdout.fnmatch_lines(["*two different targets are named 'target:app.py:answer'*"])
