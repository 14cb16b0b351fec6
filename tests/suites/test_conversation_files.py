"""Conversations in suite files: `turns:`, `simulate:`, `conversation:` build and locate errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum import Prompt
from promptum.cases import ConversationGrading, Criterion, Simulation
from promptum.cli import main
from promptum.errors import ConfigError
from promptum.suites import load_suite, suite_json_schema
from tests.suites.suite_problems import located_problem, problems
from tests.support.cli import write

VALID = """\
judge: {model: local/smollm2}
defaults:
  checks: [{type: max_length, value: 2000}]
test_cases:
  - id: remembers-the-name
    system: "You are a support assistant for {{ shop }}."
    vars: {shop: Acme, name: Ada}
    turns:
      - query: "Hi, I'm {{ name }}."
      - query: "You said: {{ turns[0].reply }}. What is my name?"
        checks: [{type: contains, value: "{{ name }}"}]
        criteria: {polite: "Stays polite."}
    conversation:
      checks: [{type: not_contains, value: SAVE20}]
      criteria: {kind: "Kind in every reply."}
    expected_behavior: Remembers the user's name.
  - id: refund-simulated
    simulate:
      model: local/smollm2
      goal: "Get a refund for order {{ order }}"
      max_turns: 4
      persona: A hurried customer
      stop: [{type: contains, value: refund}]
      opening: "Hi, my order is late."
      seed: 7
      temperature: 0.5
    vars: {order: 123}
"""


def test_a_scripted_conversation_builds_its_turns(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", VALID)
    case, simulated = load_suite(path).cases
    assert case.is_conversation
    # Only the opening system message: the turns are the user's messages.
    assert [(m.role, m.content) for m in case.messages] == [
        ("system", "You are a support assistant for Acme.")
    ]
    first, second = case.turns
    assert (first.query, first.reads_turns) == ("Hi, I'm Ada.", False)
    # A query reading earlier turns stays a template, rendered when its turn comes.
    assert second.query == "You said: {{ turns[0].reply }}. What is my name?"
    assert second.reads_turns
    assert [(c.type, c.value) for c in second.checks] == [("contains", "Ada")]
    assert second.criteria == (Criterion("polite", "Stays polite."),)
    assert (first.source, second.source) == (f"{path}:9", f"{path}:10")
    # The suite's defaults checks are the case's checks: they grade every turn's reply.
    assert [c.type for c in case.grading.checks] == ["max_length"]
    assert case.grading.conversation == ConversationGrading(
        checks=case.grading.conversation.checks,
        criteria=(Criterion("kind", "Kind in every reply."),),
    )
    assert [c.value for c in case.grading.conversation.checks] == ["SAVE20"]
    assert case.grading.expected_behavior == "Remembers the user's name."
    assert case.simulate is None

    assert simulated.turns == ()
    assert simulated.simulate == Simulation(
        model="local/smollm2",
        goal="Get a refund for order 123",
        max_turns=4,
        persona="A hurried customer",
        stop=simulated.simulate.stop if simulated.simulate else (),
        opening="Hi, my order is late.",
        seed=7,
        temperature=0.5,
    )
    assert simulated.simulate is not None
    assert [c.value for c in simulated.simulate.stop] == ["refund"]
    assert simulated.messages == ()


def test_validate_lists_the_conversations(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", VALID)
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 0, done.output
    # The default check grades each turn: 2 + 1 of turn 2 + 1 of the conversation, and up
    # to 4 of the simulated conversation (its stop check grades nothing).
    assert (
        "2 cases, up to 8 checks (1 conversation of 2 turns, 1 with a simulated user)"
        in done.output
    )


@pytest.mark.parametrize(
    ("case", "where", "message"),
    [
        (
            "{id: a, query: hi, turns: [{query: x}]}",
            "3:13: test_cases[0].query",
            "a conversation's user messages are its `turns`: remove `query`",
        ),
        (
            "{id: a, messages: [{role: user, content: x}], turns: [{query: x}]}",
            "3:13: test_cases[0].messages",
            "remove `messages`",
        ),
        (
            "{id: a, turns: [{query: x}], simulate: {model: local/smollm2, goal: g, max_turns: 2}}",
            "3:34: test_cases[0].simulate",
            "give either `turns`",
        ),
        (
            "{id: a, simulate: {model: local/smollm2, max_turns: 2}}",
            "3:13: test_cases[0].simulate.goal",
            "this key is required",
        ),
        (
            "{id: a, simulate: {goal: g, max_turns: 2}}",
            "3:13: test_cases[0].simulate.model",
            "this key is required",
        ),
        (
            "{id: a, simulate: {model: local/smollm2, goal: g}}",
            "3:13: test_cases[0].simulate.max_turns",
            "this key is required",
        ),
        (
            "{id: a, simulate: {model: local/smollm2, goal: g, max_turns: 0}}",
            "3:55: test_cases[0].simulate.max_turns",
            "greater than or equal to 1",
        ),
        (
            "{id: a, turns: [{query: x}], checks: [{type: contains, value: y}]}",
            "3:34: test_cases[0].checks",
            "put these checks in a turn or in `conversation:`",
        ),
        (
            "{id: a, simulate: {model: local/smollm2, goal: g, max_turns: 1}, "
            "checks: [{type: contains, value: y}]}",
            "3:70: test_cases[0].checks",
            "put these checks in `conversation:`",
        ),
        (
            "{id: a, turns: [{query: x}], attack_target: {b: 1}, response_model: {type: object, "
            "properties: {b: {type: integer}}}}",
            "3:34: test_cases[0].attack_target",
            "put `attack_target` in the turn whose reply it asserts on",
        ),
        (
            "{id: a, turns: [{query: x, criteria: {polite: Is polite.}}]}",
            "3:32: test_cases[0].turns[0].criteria",
            "judge criteria need a judge model, and this case has none",
        ),
        (
            "{id: a, turns: [{query: x}], conversation: {criteria: {polite: Is polite.}}}",
            "3:49: test_cases[0].conversation.criteria",
            "judge criteria need a judge model",
        ),
        (
            "{id: a, query: x, conversation: {checks: [{type: contains, value: y}]}}",
            "3:23: test_cases[0].conversation",
            "`conversation:` grades a conversation, and this case is one request",
        ),
        (
            "{id: a, turns: [{query: x, expected: {b: 1}}]}",
            "3:32: test_cases[0].turns[0].expected",
            "field assertions need structured output: add `response_model`",
        ),
        (
            "{id: a, turns: [{query: x, expected: {c: 1}}], response_model: {type: object, "
            "properties: {b: {type: integer}}}}",
            "3:43: test_cases[0].turns[0].expected.c",
            "the response schema has no field 'c'",
        ),
        (
            "{id: a, turns: [{query: x, checks: [{type: contans, value: y}]}]}",
            "test_cases[0].turns[0].checks[0]",
            "Did you mean 'contains'?",
        ),
        (
            "{id: a, turns: [{query: x, criteria: {judge: y}}]}",
            "test_cases[0].turns[0].criteria.judge",
            "the criterion `judge` is the case's expected_behavior",
        ),
        (
            "{id: a, turns: [{query: x, check: []}]}",
            "test_cases[0].turns[0].check",
            "Did you mean 'checks'?",
        ),
        (
            "{id: a, turns: [{query: x}, {query: '{{ turns[0].reply | nosuchfilter }}'}]}",
            "test_cases[0].turns[1].query",
            "No filter named 'nosuchfilter'",
        ),
    ],
)
def test_each_mistake_is_a_located_load_error(
    tmp_path: Path, case: str, where: str, message: str
) -> None:
    found = located_problem(tmp_path, f"name: s\ntest_cases:\n  - {case}\n")
    assert where in found
    assert message in found


def test_a_turn_reading_a_reply_that_does_not_exist_yet(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            turns:
              - query: "{{ turns[0].reply }}"
              - query: "{{ turns[0].reply }} and {{ turns[1].reply }}"
              - query: "{{ turns[-2].query }}, then {{ turns[-3].reply }}"
              - query: "{% for t in turns %}{{ t.reply }}{% endfor %}"
              - query: "{{ turns[0].replly }}"
              - query: "{{ tunrs[0].reply }}"
        """,
    )
    found = problems(path)
    assert found[0] == (
        f"{path}:4:9: test_cases[0].turns[0].query: turn 1 reads turns[0].reply, which does "
        "not exist yet: a turn sees only earlier turns (it is the first; turns[0] is the "
        "first turn)"
    )
    assert found[1] == (
        f"{path}:5:9: test_cases[0].turns[1].query: turn 2 reads turns[1].reply, which does "
        "not exist yet: a turn sees only earlier turns (only turns[0]; turns[0] is the first "
        "turn)"
    )
    assert found[2].startswith(f"{path}:6:9: test_cases[0].turns[2].query: turn 3 reads turns[-3]")
    assert found[3].startswith(f"{path}:8:9: test_cases[0].turns[4].query: template variable")
    assert "has no attribute 'replly'" in found[3]
    assert "an earlier turn has `query` and `reply`" in found[3]
    assert found[4].startswith(f"{path}:9:9: test_cases[0].turns[5].query: template variable")
    assert "'tunrs' is undefined" in found[4]
    assert len(found) == 5  # the loop over turns and turns[-2] in turn 3 are fine


def test_a_turn_reading_turns_cannot_use_the_canary(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path,
        "test_cases:\n  - id: a\n    turns: [{query: hi}, "
        "{query: '{{ turns[0].reply }} {{ canary }}'}]\n",
    )
    assert "test_cases[0].turns[1].query: a turn that reads earlier turns" in message
    assert "put {{ canary }} in the system message" in message


def test_a_turn_not_reading_turns_renders_at_load_like_any_template(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path, "test_cases:\n  - id: a\n    turns: [{query: 'Hi {{ nmae }}'}]\n"
    )
    assert "test_cases[0].turns[0].query: template variable error" in message
    assert "'nmae' is undefined" in message


def test_turns_cannot_run_on_prompt_variants(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path,
        """\
        prompts: {a: "Q: {{ query }}", b: "Question: {{ query }}"}
        test_cases:
          - id: a
            turns: [{query: hi}]
        """,
    )
    assert "test_cases[0].turns: a conversation cannot run on the suite's `prompts:`" in message


def test_validate_exits_2_with_located_errors_and_no_traceback(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml", "test_cases:\n  - {id: a, query: hi, turns: [{query: x}]}\n"
    )
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 2
    assert f"{path}:2:" in done.output
    assert "remove `query`" in done.output
    assert "Traceback" not in done.output


def test_csv_and_jsonl_rows_refuse_conversations(tmp_path: Path) -> None:
    (tmp_path / "rows.csv").write_text("id,query,turns\na,hi,x\n", encoding="utf-8")
    row = {"id": "b", "turns": [{"query": "x"}]}
    (tmp_path / "rows.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    path = write(tmp_path / "suite.yaml", "cases_from: [rows.csv, rows.jsonl]\n")
    found = problems(path)
    assert len(found) == 2, found
    csv_line, jsonl_line = sorted(found)
    assert csv_line.startswith(f"{tmp_path / 'rows.csv'}:2:")
    assert "a conversation (`turns`) cannot be written in a CSV or JSONL row" in csv_line
    assert "the row's column `turns`" in csv_line
    assert jsonl_line.startswith(f"{tmp_path / 'rows.jsonl'}:1:")
    assert "turns: a conversation (`turns`) cannot be written in a CSV or JSONL row" in jsonl_line


def test_a_yaml_case_file_may_hold_conversations(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    write(tmp_path / "cases/talk.yaml", "- id: a\n  turns: [{query: hi}, {query: again}]\n")
    path = write(tmp_path / "suite.yaml", "cases_from: cases/*.yaml\n")
    (case,) = load_suite(path).cases
    assert [t.query for t in case.turns] == ["hi", "again"]


def test_the_schema_has_the_conversation_keys() -> None:
    schema = suite_json_schema()
    case = schema["$defs"]["CaseFields"]["properties"]
    assert {"turns", "simulate", "conversation"} <= set(case)
    simulate = schema["$defs"]["SimulateSpec"]
    assert set(simulate["required"]) == {"model", "goal", "max_turns"}
    assert schema["$defs"]["TargetSpec"]["properties"]["history"]["enum"] == ["client", "server"]


def test_a_target_says_who_keeps_the_history(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def chat(messages):\n    return 'ok'\n", encoding="utf-8")
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: python
            target: {function: app.py:chat, history: server}
            turns: [{query: hi}]
          - id: http
            target: {url: "http://127.0.0.1:9/chat", history: server}
            turns: [{query: hi}]
          - id: default
            target: app.py:chat
            turns: [{query: hi}]
        """,
    )
    histories = [case.target.history for case in load_suite(path).cases if case.target]
    assert histories == ["server", "server", "client"]
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - id: a\n    target: {function: app.py:chat, history: serve}\n"
        "    turns: [{query: hi}]\n",
    )
    assert f"{path}:3:37: test_cases[0].target.history: Input should be 'client' or 'server'" in (
        "\n".join(problems(path))
    )


def test_a_simulated_users_model_is_checked_by_validate(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - id: a\n    simulate: {model: nosuchprovider/x, goal: g, max_turns: 2}\n",
    )
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 2, done.output
    assert "test_cases[0].simulate.model" in done.output


def test_a_redteam_case_graded_only_by_its_conversation_is_detected(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            tags: [redteam]
            turns: [{query: hi}, {query: again}]
            conversation: {checks: [{type: no_exfiltration}]}
          - id: b
            tags: [redteam]
            turns: [{query: hi}]
        """,
    )
    found = problems(path)
    assert len(found) == 1
    assert "test_cases[1].tags: a red-team case (tagged `redteam`) needs a detector" in found[0]


class TestPythonApi:
    def test_turns_simulate_and_conversation_take_the_suite_shapes(self) -> None:
        case = Prompt(
            name="memory",
            system="Be brief.",
            turns=[
                "Hi, I'm Ada.",
                {
                    "query": "You said {{ turns[0].reply }}",
                    "checks": [{"type": "contains", "value": "Ada"}],
                },
            ],
            conversation={"checks": [{"type": "not_contains", "value": "SAVE20"}]},
        ).to_case(["local/smollm2"], None)
        assert [(t.query, t.reads_turns) for t in case.turns] == [
            ("Hi, I'm Ada.", False),
            ("You said {{ turns[0].reply }}", True),
        ]
        assert [t.source for t in case.turns] == [None, None]
        assert case.grading.conversation is not None
        assert [c.value for c in case.grading.conversation.checks] == ["SAVE20"]
        simulated = Prompt(
            name="sim", simulate={"model": "local/smollm2", "goal": "Get a refund", "max_turns": 3}
        ).to_case(["local/smollm2"], None)
        assert simulated.simulate == Simulation("local/smollm2", "Get a refund", 3)

    def test_turn_criteria_keep_the_sessions_judge(self) -> None:
        from promptum.cases import JudgeConfig

        case = Prompt(
            name="judged", turns=[{"query": "hi", "criteria": {"polite": "Is polite."}}]
        ).to_case(["local/smollm2"], JudgeConfig("local/smollm2"))
        assert case.grading.judge is not None
        assert case.turns[0].criteria == (Criterion("polite", "Is polite."),)

    @pytest.mark.parametrize(
        ("fields", "message"),
        [
            ({"prompt": "q", "turns": ["a"]}, "remove `prompt`/`messages`"),
            ({"turns": ["{{ turns[0].reply }}"]}, "turn 1 reads turns[0].reply"),
            ({"turns": [{"query": "a", "criteria": {"p": "x"}}]}, "need a judge model"),
            ({"simulate": {"model": "local/smollm2", "max_turns": 1}}, "simulate.goal"),
            ({"turns": "abc"}, "turns must be a list"),
            ({"prompt": "q", "conversation": {"checks": []}}, "this case is one request"),
        ],
    )
    def test_mistakes_name_the_prompt(self, fields: dict[str, object], message: str) -> None:
        with pytest.raises(ConfigError, match="Prompt 'z'") as caught:
            Prompt(name="z", **fields).to_case(["local/smollm2"], None)  # type: ignore[arg-type]
        assert message in str(caught.value)
