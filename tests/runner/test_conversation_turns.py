"""Scripted conversations: templates reading earlier turns, grades per turn and over the whole,
what the judge reads, and a target failing mid-conversation. No model: Python targets and
the fault server (as the judge)."""

from __future__ import annotations

from typing import Any

from promptum.cases import ConversationGrading, Criterion, Grading, JudgeConfig, TestCase, Turn
from promptum.checks import CheckDefinition
from promptum.providers import ClientOptions, PythonTarget
from promptum.values.run_result import CaseResult, Message
from tests.runner.conversation_support import NO_DISCOUNT_CODE, bot_case, run_one
from tests.support.fault_server import FaultServer, Reply


def _counting() -> Any:
    calls: list[str] = []

    def bot(query: str) -> str:
        calls.append(query)
        if len(calls) == 3:
            raise ConnectionError("the bot's database went away")
        return f"reply {len(calls)} to {query}"

    return bot


def test_a_target_failing_at_turn_3_ends_the_conversation_as_an_error_naming_it() -> None:
    turns = [
        Turn(query=f"q{n}", checks=(CheckDefinition(type="contains", value="reply"),))
        for n in range(1, 5)
    ]
    result = run_one(
        bot_case(
            _counting(),
            *turns,
            grading=Grading(
                conversation=ConversationGrading(
                    checks=(CheckDefinition(type="contains", value="x"),)
                )
            ),
        )
    )
    assert result.status == "error"
    assert (result.completion.error or "").startswith("turn 3: ")
    assert "the bot's database went away" in (result.completion.error or "")
    assert result.reasons == [f"error: {result.completion.error}"]
    turns_done = result.turns or []
    assert [t.status for t in turns_done] == ["pass", "pass", "error"]
    assert [t.completion.text for t in turns_done[:2]] == ["reply 1 to q1", "reply 2 to q2"]
    assert result.failing_turn == 3
    # The turns before it keep their grades; the conversation is not graded.
    assert [g.details.get("turn") for g in result.grades] == [1, 2]


def test_a_turn_query_reads_the_earlier_replies_when_it_is_reached() -> None:
    def bot(query: str) -> str:
        return "Your code is 4417." if query == "Give me a code" else f"echo: {query}"

    result = run_one(
        bot_case(
            bot,
            Turn(query="Give me a code"),
            Turn(
                query="You said: {{ turns[0].reply }} and I asked {{ turns[0].query }}",
                reads_turns=True,
            ),
            grading=Grading(checks=(CheckDefinition(type="min_length", value=1),)),
        )
    )
    assert result.status == "pass"
    second = (result.turns or [])[1]
    assert second.query == "You said: Your code is 4417. and I asked Give me a code"
    assert second.completion.text == f"echo: {second.query}"


def test_a_template_failing_at_its_turn_is_an_error_of_that_turn() -> None:
    result = run_one(
        bot_case(
            lambda query: "ok",
            Turn(query="hi"),
            Turn(query="{{ turns[0].reply | nosuchfilter }}", reads_turns=True),
        )
    )
    assert result.status == "error"
    assert (result.completion.error or "").startswith("turn 2: its query template")
    assert [t.status for t in result.turns or []] == ["pass", "error"]


def test_conversation_checks_see_every_reply_and_name_no_turn() -> None:
    replies = iter(["Hello!", "Use SAVE20 at checkout.", "Anything else?"])
    result = run_one(
        bot_case(
            lambda query: next(replies),
            Turn(query="hi"),
            Turn(query="any discount?"),
            Turn(query="thanks"),
            grading=NO_DISCOUNT_CODE,
        )
    )
    assert result.status == "fail"
    assert [t.status for t in result.turns or []] == ["pass", "pass", "pass"]
    assert result.failing_turn is None  # no turn failed: the conversation did
    (grade,) = result.grades
    assert "turn" not in grade.details
    assert result.reasons[0].startswith("conversation: ")


def test_latency_tokens_and_tool_calls_are_summed_over_turns() -> None:
    from promptum import TargetResult

    def bot(query: str) -> TargetResult:
        return TargetResult(text=query, input_tokens=10, output_tokens=2, cost_usd=0.5)

    result = run_one(bot_case(bot, Turn(query="a"), Turn(query="b"), Turn(query="c")))
    assert result.completion.text == "c"
    assert result.completion.input_tokens == 30
    assert result.completion.output_tokens == 6
    assert result.completion.cost_usd == 1.5
    latencies = [t.completion.latency_ms or 0 for t in result.turns or []]
    assert result.completion.latency_ms == sum(latencies)


def test_the_judge_reads_a_turn_in_context_and_the_conversation_as_a_transcript(
    server: FaultServer, options: ClientOptions
) -> None:
    server.default = Reply.ok('{"score": 9, "reason": "fine"}')
    replies = iter(["Hello Ada.", "Your name is Ada."])
    case = bot_case(
        lambda query: next(replies),
        Turn(query="Hi, I'm Ada."),
        Turn(query="What is my name?", criteria=(Criterion("remembers", "Uses the name Ada."),)),
        grading=Grading(
            judge=JudgeConfig(model="fault/judge"),
            expected_behavior="Friendly throughout.",
            conversation=ConversationGrading(
                criteria=(Criterion("polite", "Polite in every reply."),)
            ),
        ),
    )
    result = run_one(case, options)
    assert result.status == "pass", result.reasons
    assert [(g.name, g.details.get("turn")) for g in result.grades] == [
        ("remembers", 2),
        ("judge", None),
        ("polite", None),
    ]
    prompts = [r.body["messages"][0]["content"] for r in server.requests]
    turn, whole = prompts[0], prompts[2]
    # A turn's criterion: the conversation so far as the input, that turn's reply as the answer.
    assert "user: Hi, I'm Ada.\nassistant: Hello Ada.\nuser: What is my name?" in turn
    assert "The assistant answered:\nYour name is Ada." in turn
    # The conversation's: the whole transcript as the answer.
    assert (
        "User: Hi, I'm Ada.\nAssistant: Hello Ada.\nUser: What is my name?\n"
        "Assistant: Your name is Ada."
    ) in whole
    assert "Polite in every reply." in whole
    assert "Friendly throughout." in prompts[1]


def test_a_single_request_case_runs_as_before() -> None:
    case = TestCase(
        id="one",
        messages=(Message(role="user", content="hi"),),
        models=("target:bot",),
        target=PythonTarget("bot", lambda query: "hello"),
    )
    result = run_one(case)
    assert result.turns is None
    assert "turns" not in result.model_dump()


def test_run_unit_runs_a_conversation_as_the_pytest_plugin_and_ray_workers_do() -> None:
    import asyncio

    from promptum.foundations.redaction import REDACTED
    from promptum.providers import ModelClient
    from promptum.runner import run_unit

    ids: list[str | None] = []

    def bot(query: str, conversation_id: str | None) -> str:
        ids.append(conversation_id)
        return f"re: {query} sk-live-{'x' * 24}"

    case = bot_case(
        bot,
        Turn(query="a"),
        Turn(query="b"),
        grading=Grading(checks=(CheckDefinition(type="min_length", value=1),)),
    )
    target = case.target
    assert target is not None

    async def run() -> CaseResult:
        client = ModelClient(ClientOptions(cache=False, targets={target.id: target}))
        try:
            return await run_unit(client.complete, case, target.id, 1, (f"sk-live-{'x' * 24}",))
        finally:
            await client.aclose()

    result = asyncio.run(run())
    assert result.status == "pass"
    assert [t.completion.text for t in result.turns or []] == [
        f"re: a {REDACTED}",
        f"re: b {REDACTED}",
    ]
    assert len(set(ids)) == 1
    assert ids[0] is not None
