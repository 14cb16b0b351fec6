"""`Prompt` and a suite file build a case through the same rules."""

from __future__ import annotations

from pathlib import Path

from promptum import Prompt
from promptum.session import Session
from promptum.suites import load_suite


def test_prompt_and_suite_send_the_same_messages(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text(
        "system: Be brief.\n"
        "test_cases:\n"
        "  - id: talk\n"
        "    messages:\n"
        "      - {role: system, content: You are a pirate.}\n"
        "      - {role: user, content: Hello}\n",
        encoding="utf-8",
    )
    (from_suite,) = load_suite(suite).cases
    session = Session()
    session.add_test(
        Prompt(
            name="talk",
            system="Be brief.",
            messages=[
                {"role": "system", "content": "You are a pirate."},
                {"role": "user", "content": "Hello"},
            ],
        )
    )
    (from_python,) = session.tests
    assert from_python.messages == from_suite.messages
    assert [m.role for m in from_python.messages] == ["system", "user"]


def test_prompt_text_is_sent_as_written() -> None:
    session = Session()
    session.add_test(Prompt(name="t", prompt="Say {{ literally }}", system="sys {{ x }}"))
    (case,) = session.tests
    assert [m.content for m in case.messages] == ["sys {{ x }}", "Say {{ literally }}"]
