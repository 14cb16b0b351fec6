"""A conversation is one pytest item; its failure text and JUnit message name the failing turn."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.pytest_plugin.plugin_project import write_project

APP = """\
def chat(query: str, messages: list) -> str:
    if query == "What is my name?":
        return "I do not know your name."  # a bot that forgets
    return f"Noted: {query}"
"""

SUITE = """\
name: chat
target: app.py:chat
test_cases:
  - id: forgets
    turns:
      - query: Hi, I'm Ada.
      - query: Where is my order?
        checks: [{type: contains, value: Noted}]
      - query: What is my name?
        checks: [{type: contains, value: Ada}]
  - id: listens
    turns:
      - query: Hi
      - query: Thanks
    conversation:
      checks: [{type: contains, value: "Noted: Thanks"}]
"""


def test_a_conversation_is_one_item_failing_with_its_turn_named(
    pytester: pytest.Pytester,
) -> None:
    write_project(pytester, {"chat.yaml": SUITE})
    (pytester.path / "prompts" / "app.py").write_text(APP, encoding="utf-8")
    result = pytester.runpytest(
        "-v", "-ra", "-p", "no:randomly", "--promptum-no-store", "--junitxml=junit.xml"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "prompts/chat.yaml::chat/forgets[[]target:app.py:chat[]] FAILED*",
            "prompts/chat.yaml::chat/listens[[]target:app.py:chat[]] PASSED*",
            "    - turn 3: contains: expected to contain 'Ada'*",
            "Transcript:",
            "    turn 3 (fail):",
            "      user: What is my name?",
            "      assistant: I do not know your name.",
            "FAILED prompts/chat.yaml::chat/forgets* - turn 3: *",
        ]
    )
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    failures = {case.get("name"): case.find("failure") for case in cases}
    assert len(failures) == 2
    failure = failures["chat/forgets[target:app.py:chat]"]
    assert failure is not None
    assert failure.get("message", "").startswith("turn 3: ")
