"""A conversation in a run's plan: its fingerprint, the survey of simulator models, the journal."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from promptum import Session
from promptum.cases import ConversationGrading, Grading, Simulation, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.errors import PromptumError
from promptum.runner import Journal, Survey, plan_fingerprint
from promptum.runner._turn_lines import TurnCall
from promptum.values.completion import Completion
from promptum.values.run_result import Message


def _case(**fields: object) -> TestCase:
    return TestCase(id="c", messages=(), models=("local/smollm2",), **fields)  # type: ignore[arg-type]


SCRIPTED = _case(turns=(Turn(query="hi"), Turn(query="and?")))
SIMULATED = _case(simulate=Simulation(model="local/smollm2", goal="a refund", max_turns=3))


def test_the_fingerprint_covers_turns_simulation_and_conversation_grading() -> None:
    prints = {
        plan_fingerprint([case])
        for case in (
            SCRIPTED,
            dataclasses.replace(SCRIPTED, turns=(Turn(query="hi"), Turn(query="and then?"))),
            dataclasses.replace(
                SCRIPTED,
                turns=(Turn(query="hi", checks=(CheckDefinition(type="contains", value="x"),)),),
            ),
            dataclasses.replace(
                SCRIPTED,
                grading=Grading(
                    conversation=ConversationGrading(
                        checks=(CheckDefinition(type="contains", value="x"),)
                    )
                ),
            ),
            SIMULATED,
            dataclasses.replace(
                SIMULATED,
                simulate=Simulation(model="local/smollm2", goal="a refund", max_turns=4),
            ),
        )
    }
    assert len(prints) == 6
    assert plan_fingerprint([SCRIPTED]) == plan_fingerprint([_case(turns=SCRIPTED.turns)])
    # A turn moved within its file asks the same: its resume journal still applies.
    moved = dataclasses.replace(
        SCRIPTED, turns=(Turn(query="hi", source="s.yaml:9"), SCRIPTED.turns[1])
    )
    assert plan_fingerprint([moved]) == plan_fingerprint([SCRIPTED])


def test_a_single_request_case_keeps_its_fingerprint() -> None:
    single = TestCase(id="c", messages=(Message(role="user", content="hi"),), models=("m",))
    # Worked out before conversations existed (baseline 368f0ee).
    assert plan_fingerprint([single]) == "0fc8d069e6766376"


def test_the_survey_knows_the_simulator_models_before_the_run() -> None:
    survey = Survey.of(
        [
            SIMULATED,
            dataclasses.replace(
                SIMULATED, id="d", simulate=Simulation(model="other/user", goal="g", max_turns=1)
            ),
        ]
    )
    assert survey.simulator_models == {"local/smollm2", "other/user"}


@pytest.mark.embedded_model
def test_an_unknown_simulator_model_stops_the_run_before_any_call() -> None:
    session = Session()
    session.add_test(
        TestCase(
            id="c",
            messages=(),
            models=("target:bot",),
            simulate=Simulation(model="local/smolm2", goal="a refund", max_turns=2),
        )
    )
    with pytest.raises(PromptumError, match="local/smollm2"):
        session.run()


def test_a_journal_gives_back_the_turns_of_unfinished_conversations_only(tmp_path: Path) -> None:
    from promptum.values.run_result import CaseResult, RunResult

    run = RunResult(run_id="r1", suite="s", models=["m"])
    journal = Journal(tmp_path, "f")
    journal.start(run)
    call = TurnCall("digest", Completion(text="hello", model="m"))
    journal.add_turn(("s/a", "", "m", 1), 1, [call])
    journal.add_turn(("s/b", "", "m", 1), 1, [call])
    finished = CaseResult(case_id="b", suite="s", model="m", status="pass", completion=Completion())
    journal.add(finished)
    run.complete = False
    journal.finish(run)  # incomplete: the journal stays

    resumed = Journal(tmp_path, "f")
    loaded = resumed.load()
    assert loaded is not None
    assert [r.case_id for r in loaded[2]] == ["b"]  # turn lines are no results
    resumed.start(run)
    assert resumed.earlier_calls(("s/a", "", "m", 1)) == [call]
    assert resumed.earlier_calls(("s/b", "", "m", 1)) == []  # finished: not replayed
    resumed.finish(run)
