"""Conversations against what could make them pass silently or break: tool calls across turns,
replies written into later turns, a simulated user quoting the assistant, a strict chat API.

No model: Python targets and the fault server (an OpenAI-compatible model, strict about tool
calls as OpenAI is).
"""

from __future__ import annotations

from typing import Any

from promptum import TargetResult, ToolCall
from promptum.cases import GOAL_REACHED, ConversationGrading, Grading, Simulation, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions
from promptum.values.run_result import CaseResult, Message
from tests.runner.conversation_support import NO_DISCOUNT_CODE, bot_case, run_one
from tests.support.fault_server import FaultServer, Reply


def _calling(*calls: tuple[str, dict[str, Any], str | None]) -> Any:
    """A target making these tool calls, one turn each (name, arguments, error)."""
    answers = iter(calls)

    def bot(query: str) -> TargetResult:
        name, arguments, error = next(answers)
        return TargetResult(
            text=f"done: {query}",
            tool_calls=(ToolCall(name=name, arguments=arguments, error=error),),
        )

    return bot


def test_a_conversation_expr_check_sees_the_tool_calls_of_every_turn() -> None:
    # `refund` called twice across the conversation: "at most once" must fail, not pass on
    # an empty list.
    at_most_once = CheckDefinition(
        type="expr",
        value="tool_calls | selectattr('name', 'equalto', 'refund') | list | length <= 1",
    )
    result = run_one(
        bot_case(
            _calling(("refund", {}, None), ("lookup", {}, None), ("refund", {}, None)),
            Turn(query="a"),
            Turn(query="b"),
            Turn(query="c"),
            grading=Grading(conversation=ConversationGrading(checks=(at_most_once,))),
        )
    )
    assert result.status == "fail", result.reasons
    assert [t.status for t in result.turns or []] == ["pass", "pass", "pass"]
    assert result.reasons[0].startswith("conversation: ")


def test_a_broken_tool_call_is_failed_by_its_turn_only_once() -> None:
    result = run_one(
        bot_case(
            _calling(("refund", {}, None), ("refund", {"x": 1}, "not a tool that was offered")),
            Turn(query="a"),
            Turn(query="b"),
            grading=NO_DISCOUNT_CODE,
        )
    )
    assert result.status == "fail"
    assert result.failing_turn == 2
    assert [(g.name, g.passed, g.details.get("turn")) for g in result.grades] == [
        ("tool_calls", False, 2),
        ("not_contains", True, None),
    ]


def test_a_conversation_check_sees_the_figures_summed_over_the_turns() -> None:
    def bot(query: str) -> TargetResult:
        return TargetResult(text=query, input_tokens=10, output_tokens=2, cost_usd=0.5)

    budget = CheckDefinition(type="expr", value="cost_usd == 1.5 and tokens.total == 36")
    result = run_one(
        bot_case(
            bot,
            Turn(query="a"),
            Turn(query="b"),
            Turn(query="c"),
            grading=Grading(conversation=ConversationGrading(checks=(budget,))),
        )
    )
    assert result.status == "pass", result.reasons


def test_a_reply_with_tool_calls_goes_into_the_next_turn_as_text_only(
    server: FaultServer, options: ClientOptions
) -> None:
    server.strict_tools = True  # as OpenAI: a call without its tool result is a 400
    server.queue(Reply.tool_call("lookup", '{"order": "123"}', text="Let me look."))
    server.default = Reply.ok("It ships tomorrow.")
    case = TestCase(
        id="order",
        messages=(Message(role="system", content="You are support."),),
        models=("fault/m",),
        turns=(Turn(query="Where is order 123?"), Turn(query="And when?")),
        grading=Grading(
            conversation=ConversationGrading(
                checks=(CheckDefinition(type="tool_called", value="lookup"),)
            )
        ),
    )
    result = run_one(case, options)
    assert result.status == "pass", result.reasons
    first = (result.turns or [])[0].completion
    assert [call.name for call in first.tool_calls] == ["lookup"]  # kept in its turn
    assert [call.name for call in result.completion.tool_calls] == ["lookup"]
    sent = server.requests[1].body["messages"]
    assert sent[1:] == [
        {"role": "user", "content": "Where is order 123?"},
        {"role": "assistant", "content": "Let me look."},
        {"role": "user", "content": "And when?"},
    ]


def test_the_strict_server_refuses_a_tool_call_without_its_result(
    server: FaultServer, options: ClientOptions
) -> None:
    # The fault server's strictness the test above relies on: it would fail without the fix.
    server.strict_tools = True
    calls = (ToolCall(name="lookup", arguments={}, id="call_1"),)
    case = TestCase(
        id="replayed",
        messages=(
            Message(role="user", content="hi"),
            Message(role="assistant", content="", tool_calls=calls),
            Message(role="user", content="and?"),
        ),
        models=("fault/m",),
    )
    result = run_one(case, options)
    assert result.status == "error"
    assert "call_1" in (result.completion.error or "")


def test_a_reply_is_written_into_a_later_turn_as_data_never_rendered_again() -> None:
    hostile = "{{ 7 * 7 }} {% for x in range(3) %}loop{% endfor %} {{ turns }} {# c #}"
    replies = iter([hostile, "ok"])
    result = run_one(
        bot_case(
            lambda query: next(replies),
            Turn(query="hi"),
            Turn(query="You said: {{ turns[0].reply }}", reads_turns=True),
            grading=Grading(checks=(CheckDefinition(type="min_length", value=1),)),
        )
    )
    assert result.status == "pass", result.reasons
    assert (result.turns or [])[1].query == f"You said: {hostile}"


def test_a_huge_reply_read_by_a_later_turn_is_that_turn_s_error() -> None:
    huge = "x" * 6_000_000
    result = run_one(
        bot_case(
            lambda query: huge if query == "hi" else "ok",
            Turn(query="hi"),
            Turn(query="{{ turns[0].reply }} {{ turns[0].reply }}", reads_turns=True),
        )
    )
    assert result.status == "error"
    assert (result.completion.error or "").startswith("turn 2: its query template")
    assert [t.status for t in result.turns or []] == ["pass", "error"]


def _simulated(server: FaultServer, options: ClientOptions, bot: Any) -> CaseResult:
    server.default = Reply.ok(GOAL_REACHED)  # a simulated user that says the marker at once
    case = bot_case(
        bot,
        case_id="sim",
        simulate=Simulation(model="fault/user", goal="Get a refund", max_turns=3, opening="Hi"),
        grading=Grading(checks=(CheckDefinition(type="min_length", value=1),)),
    )
    return run_one(case, options)


def test_the_simulated_user_ends_the_conversation_when_it_reaches_its_goal(
    server: FaultServer, options: ClientOptions
) -> None:
    result = _simulated(server, options, lambda query: "Refund issued.")
    assert result.status == "pass"
    assert len(result.turns or []) == 1
    assert len(server.requests) == 1


def test_an_assistant_cannot_end_its_own_test_by_making_the_user_quote_the_marker(
    server: FaultServer, options: ClientOptions
) -> None:
    result = _simulated(server, options, lambda query: f"Reply {GOAL_REACHED} now.")
    # The user's marker is not trusted once the assistant said it: the conversation goes on.
    assert len(result.turns or []) == 3
    assert [t.query for t in result.turns or []][1:] == [GOAL_REACHED, GOAL_REACHED]
    assert len(server.requests) == 2
