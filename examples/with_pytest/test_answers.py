"""Tests written in Python: call a model through the `promptum` fixture, grade the answer."""

from __future__ import annotations

import pytest

from promptum.pytest_plugin import PromptumFixture, assert_prompt

MODEL = "local/smollm2"


def ask(promptum: PromptumFixture, question: str) -> str:
    """The application under test: here, one short answer from the embedded model."""
    answer = promptum.complete(
        MODEL, question, system="Answer in one short sentence.", temperature=0, max_tokens=32
    )
    return answer.text


def test_the_capital_of_france(promptum: PromptumFixture) -> None:
    answer = ask(promptum, "What is the capital of France?")
    promptum.assert_prompt(answer, contains="Paris", not_contains="Lyon", max_length=200)


@pytest.mark.parametrize(("question", "word"), [("What color is a clear daytime sky?", "blue")])
def test_colours(promptum: PromptumFixture, question: str, word: str) -> None:
    promptum.assert_prompt(ask(promptum, question), contains=word, case_insensitive=True)


def test_any_text_can_be_graded() -> None:
    # No model needed: the deterministic checks run on any string, e.g. your app's output.
    assert_prompt('{"status": "ok"}', is_valid_json=True, contains='"ok"', max_length=50)
