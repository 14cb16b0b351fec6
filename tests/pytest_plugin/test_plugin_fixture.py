"""The `promptum` fixture and `assert_prompt`: passing, failing messages, the judge, structure."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from promptum.errors import ConfigError
from promptum.pytest_plugin import PromptAssertionError, assert_prompt
from promptum.values.completion import Completion
from tests.pytest_plugin.plugin_project import Servers


class Ticket(BaseModel):
    category: str
    priority: int


def test_assert_prompt_returns_the_graded_result_when_everything_passes() -> None:
    result = assert_prompt(
        "The capital of France is Paris.",
        contains=["Paris", "France"],
        not_contains="Lyon",
        regex=r"capital of \w+",
        min_length=10,
        max_length=100,
    )
    assert result.status == "pass"
    assert [grade.name for grade in result.grades] == [
        "contains",
        "contains",
        "not_contains",
        "regex",
        "min_length",
        "max_length",
    ]


def test_a_failing_assert_prompt_lists_every_reason_and_the_response() -> None:
    with pytest.raises(PromptAssertionError) as caught:
        assert_prompt(
            "The capital of France is Lyon.",
            contains="Paris",
            not_regex="Lyon",
            exact_match="paris",
            case_insensitive=True,
        )
    message = str(caught.value)
    lines = message.splitlines()
    assert lines[0] == "assert_prompt: 3 of 3 checks failed: contains, not_regex, exact_match"
    assert lines[1].startswith("    - contains: expected to contain 'Paris'")
    assert lines[2].startswith("    - not_regex: ")
    assert lines[3].startswith("    - exact_match: ")
    assert lines[4] == "Response (30 characters):"
    assert lines[5] == "    The capital of France is Lyon."
    assert caught.value.result.status == "fail"


def test_a_long_response_is_cut_in_the_message() -> None:
    with pytest.raises(PromptAssertionError) as caught:
        assert_prompt("word " * 1000, contains="Paris")
    excerpt = str(caught.value).splitlines()[-1]
    assert excerpt.endswith("…")
    assert len(excerpt) < 700


def test_structured_output_is_asserted_field_by_field() -> None:
    assert_prompt(
        {"category": "billing", "priority": 2},
        response_model=Ticket,
        expected={"category": "billing"},
        attack_target={"priority": 0},
    )
    with pytest.raises(PromptAssertionError) as caught:
        assert_prompt(
            '{"category": "login", "priority": 0}',
            response_model=Ticket,
            expected={"category": "billing"},
            attack_target={"priority": 0},
        )
    assert "2 field assertions failed" in str(caught.value).splitlines()[0]
    assert "category" in str(caught.value)


def test_is_valid_json_and_extra_checks() -> None:
    assert_prompt('{"a": 1}', is_valid_json=True, checks=[{"type": "max_length", "value": 9}])
    with pytest.raises(PromptAssertionError, match="is_valid_json"):
        assert_prompt("not json", is_valid_json=True)


def test_options_are_checked_like_a_suites() -> None:
    with pytest.raises(ConfigError, match=r"unknown option.*contain\. Did you mean 'contains'"):
        assert_prompt("x", contain="x")  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match="invalid regular expression"):
        assert_prompt("x", regex="(")
    with pytest.raises(ConfigError, match="need judge="):
        assert_prompt("x", judge_model="fault/judge")


def test_a_failed_call_is_a_grading_error_not_a_failure() -> None:
    from promptum.pytest_plugin import PromptGradingError

    with pytest.raises(PromptGradingError, match="error: server error"):
        assert_prompt(Completion(error="server error: 503"), contains="x")


def test_the_judge_grades_outside_pytests_fixture_too(servers: Servers) -> None:
    result = assert_prompt("Paris.", judge="Names Paris", judge_model="fault/judge")
    assert result.judge_score == 0.9
    assert "Paris." in servers.ok.requests[-1].body["messages"][0]["content"]


def test_the_fixture_calls_models_and_judges_with_the_sessions_client(
    pytester: pytest.Pytester, servers: Servers
) -> None:
    pytester.makepyfile(
        test_answers="""
        import pytest
        from promptum.pytest_plugin import PromptAssertionError, PromptGradingError

        def test_passes(promptum):
            answer = promptum.complete("fault/m", "Capital of France?", system="Be brief.")
            result = promptum.assert_prompt(
                answer, contains="Paris", judge="Names Paris", judge_model="fault/judge",
                prompt="Capital of France?",
            )
            assert result.judge_score == 0.9

        def test_fails(promptum):
            promptum.assert_prompt(promptum.complete("fault/m", "Capital of Italy?"),
                                   contains="Rome")

        def test_judge_below_threshold(promptum):
            promptum.assert_prompt("Paris", judge="Names Rome", judge_model="fault/judge",
                                   judge_threshold=0.95)

        def test_judge_down(promptum):
            with pytest.raises(PromptGradingError, match="the judge could not grade"):
                promptum.assert_prompt("Paris", judge="Names Paris", judge_model="down/judge")

        def test_structured(promptum):
            schema = {"type": "object", "properties": {"score": {"type": "integer"}},
                      "required": ["score"]}
            answer = promptum.complete("fault/m", "Grade it", response_model=schema)
            assert answer.output == {"score": 9, "reason": "Names Paris."}
            promptum.assert_prompt(answer, response_model=schema, expected={"score": 9})

        def test_call_fails(promptum):
            promptum.complete("down/m", "Hi")
        """
    )
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=3)
    result.stdout.fnmatch_lines(
        [
            "E *promptum.pytest_plugin.PromptAssertionError: "
            "assert_prompt: 1 of 1 checks failed: contains",
            "E *    - contains: expected to contain 'Rome'*",
            "E *Response (38 characters*):",
            'E *    {"score": 9, "reason": "Names Paris."}',
            "test_answers.py:13: PromptAssertionError",
        ]
    )
    result.stdout.fnmatch_lines(["*judge score 0.9 < 0.95: Names Paris."])
    result.stdout.fnmatch_lines(
        ["E *promptum.pytest_plugin.ModelCallError: the call to down/m failed: *401*"]
    )
    judged = [r for r in servers.ok.requests if "A good answer: Names Paris" in str(r.body)]
    assert "Capital of France?" in judged[0].body["messages"][0]["content"]
    first = servers.ok.requests[0].body["messages"]
    assert first == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
