"""The runner's ungraded grade: a response nothing graded is an error, a graded one never is."""

from __future__ import annotations

from typing import Any

from promptum import Session
from promptum.cases import ConversationGrading, Grading, JudgeConfig, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions, PythonTarget
from promptum.values.run_result import CaseResult, Message

NON_EMPTY = CheckDefinition(type="min_length", value=1)
NOTHING = "nothing graded the response: add a check, a field assertion or a judge criterion"


def _run(case: TestCase, judge: object = ...) -> CaseResult:
    session = Session(client_options=ClientOptions(cache=False))
    session.add_test(case)
    if judge is None:
        session.override(judge=None)  # `--no-judge`
    (result,) = session.run().results
    return result


def _case(answer: Any = lambda query: "fine", **fields: Any) -> TestCase:
    target = PythonTarget("bot", answer)
    messages = (Message(role="user", content="hi"),)
    return TestCase(id="c", messages=messages, models=(target.id,), target=target, **fields)


def _ungraded(result: CaseResult) -> list[tuple[str, str, bool, str | None]]:
    return [(g.kind, g.name, g.passed, g.error) for g in result.grades]


def test_a_request_nothing_grades_is_an_error_saying_what_to_add() -> None:
    result = _run(_case())
    assert result.status == "error"
    assert _ungraded(result) == [("check", "ungraded", False, NOTHING)]
    assert result.reasons == [NOTHING]
    assert result.completion.error is None  # the call went well: the grading is what is missing


def test_a_graded_request_gets_no_ungraded_grade() -> None:
    result = _run(_case(grading=Grading(checks=(NON_EMPTY,))))
    assert result.status == "pass"
    assert [g.name for g in result.grades] == ["min_length"]


def test_a_call_that_failed_stays_the_error_it_is() -> None:
    def down(query: str) -> str:
        raise ConnectionError("the bot is down")

    result = _run(_case(down))
    assert result.status == "error"
    assert result.grades == []
    assert "the bot is down" in (result.completion.error or "")


def test_a_thresholded_case_nothing_grades_is_an_error_without_a_score() -> None:
    result = _run(_case(grading=Grading(threshold=0.5)))
    assert (result.status, result.score) == ("error", None)
    assert [g.name for g in result.grades] == ["ungraded"]


def test_a_schema_is_a_grade_of_its_own_so_a_case_it_alone_grades_is_graded() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    fits = _run(_case(lambda query: '{"city": "Paris"}', response_schema=schema))
    assert fits.status == "pass"
    assert [(g.kind, g.name, g.passed) for g in fits.grades] == [("check", "response_schema", True)]
    misfit = _run(_case(lambda query: '{"town": "Paris"}', response_schema=schema))
    assert misfit.status == "fail"
    assert [(g.name, g.passed) for g in misfit.grades] == [("response_schema", False)]


def test_no_judge_names_the_judge_only_where_it_was_what_graded() -> None:
    judge = JudgeConfig("fault/judge")
    off = _run(_case(grading=Grading(expected_behavior="Is fine", judge=judge)), judge=None)
    assert off.status == "error"
    assert "the judge is off (--no-judge)" in (off.grades[0].error or "")
    # A judge with nothing to grade on this case (no expected_behavior, no criteria) was not
    # what graded it: the reason is the plain one.
    bare = _run(_case(grading=Grading(judge=judge)), judge=None)
    assert _ungraded(bare) == [("check", "ungraded", False, NOTHING)]


def test_a_conversation_with_one_graded_turn_is_not_ungraded() -> None:
    turns = (Turn(query="a"), Turn(query="b", checks=(NON_EMPTY,)), Turn(query="c"))
    result = _run(_case(turns=turns))
    assert result.status == "pass", result.reasons
    assert [(g.name, g.details.get("turn")) for g in result.grades] == [("min_length", 2)]
    assert [t.status for t in result.turns or []] == ["pass", "pass", "pass"]


def test_a_conversation_graded_as_a_whole_only_is_not_ungraded() -> None:
    grading = ConversationGrading(checks=(NON_EMPTY,))
    result = _run(
        _case(turns=(Turn(query="a"), Turn(query="b")), grading=Grading(conversation=grading))
    )
    assert result.status == "pass", result.reasons
    assert [g.name for g in result.grades] == ["min_length"]


def test_a_conversation_nothing_grades_is_an_error_of_the_conversation() -> None:
    result = _run(_case(turns=(Turn(query="a"), Turn(query="b"))))
    assert result.status == "error"
    assert _ungraded(result) == [("check", "ungraded", False, NOTHING)]
    assert result.grades[0].details == {}  # no turn's: the conversation's
    assert result.reasons == [f"conversation: {NOTHING}"]
    assert len(result.turns or []) == 2
