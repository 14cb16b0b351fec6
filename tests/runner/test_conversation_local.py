"""Conversations on the embedded model (SmolLM2, in-process): real replies carried turn to turn,
and a simulated user played by the same model."""

from __future__ import annotations

import pytest

from promptum import Session
from promptum.cases import GenerationParams, Grading, Simulation, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions
from promptum.values.run_result import CaseResult, Message

pytestmark = pytest.mark.embedded_model

MODEL = "local/smollm2"
PARAMS = GenerationParams(temperature=0.0, max_tokens=24, seed=1)


def _run(case: TestCase) -> CaseResult:
    session = Session(client_options=ClientOptions(cache=False))  # every reply asked for
    session.add_test(case)
    (result,) = session.run().results
    return result


def _said(pattern: str = r"\w") -> tuple[CheckDefinition, ...]:
    return (CheckDefinition(type="regex", value=pattern),)


@pytest.mark.slow
def test_a_four_turn_conversation_fails_at_turn_3_with_the_real_replies() -> None:
    case = TestCase(
        id="four-turns",
        messages=(),
        models=(MODEL,),
        params=PARAMS,
        turns=(
            Turn(query="What is the capital of France?", checks=_said()),
            Turn(query="And what is 2+2?", checks=_said()),
            Turn(
                query="Say the word 'hello'.",
                checks=(CheckDefinition(type="contains", value="ZEBRA-QUOKKA"),),
            ),
            Turn(query="Thank you!", checks=_said()),
        ),
    )
    result = _run(case)
    assert result.status == "fail"
    assert result.failing_turn == 3
    assert result.reasons == [r for r in result.reasons if r.startswith("turn 3: ")]
    turns = result.turns or []
    assert [t.status for t in turns] == ["pass", "pass", "fail", "pass"]
    assert all(t.completion.text.strip() for t in turns)
    assert len({t.completion.text for t in turns}) == 4  # each turn's own reply
    assert result.completion.text == turns[3].completion.text
    assert result.completion.output_tokens == sum(t.completion.output_tokens or 0 for t in turns)


def _simulated(
    max_turns: int, stop: tuple[CheckDefinition, ...] = (), opening: str | None = None
) -> TestCase:
    return TestCase(
        id="refund",
        messages=(Message(role="system", content="You are a shop's support assistant."),),
        models=(MODEL,),
        params=PARAMS,
        # Graded: else an error.
        grading=Grading(checks=(CheckDefinition(type="min_length", value=1),)),
        simulate=Simulation(
            model=MODEL,
            goal="Get a refund for order 123",
            persona="A hurried customer",
            max_turns=max_turns,
            stop=stop,
            opening=opening,
            seed=7,
            temperature=0.0,
        ),
    )


@pytest.mark.slow
def test_a_simulated_user_on_the_embedded_model_ends_at_max_turns() -> None:
    result = _run(_simulated(max_turns=2, opening="Hi, my order 123 is late."))
    turns = result.turns or []
    assert len(turns) == 2
    assert turns[0].query == "Hi, my order 123 is late."
    assert result.status == "pass"
    assert all(t.query.strip() and t.completion.text.strip() for t in turns)
    assert turns[0].query != turns[1].query  # the user wrote each turn from the replies


@pytest.mark.slow
def test_a_simulated_user_on_the_embedded_model_ends_at_a_stop_condition() -> None:
    # Any reply with a letter in it passes the stop check: the first reply ends it.
    result = _run(_simulated(max_turns=4, stop=_said()))
    assert len(result.turns or []) == 1
    assert result.status == "pass"
