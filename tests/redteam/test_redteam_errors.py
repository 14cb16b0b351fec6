"""A `redteam:` section the suite cannot support is a located load error, with a did-you-mean."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.errors import ConfigError
from promptum.suites import load_suite

BASE = """\
name: app
system: You are a support bot.
tools:
  - type: function
    function:
      name: create_ticket
      parameters: {type: object, properties: {summary: {type: string}}, required: [summary]}
defaults:
  response_model:
    type: object
    properties: {answer: {type: string}, source: {type: string}}
test_cases:
  - id: one
    query: Hello?
"""


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return str(caught.value)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("{goals: [feild]}", "redteam.goals[0]: unknown goal 'feild'. Did you mean 'field'?"),
        ("{goals: ['field:sorce']}", "has no field 'sorce'. Did you mean 'source'?"),
        ("{goals: ['tool:create_tiket']}", "no tool 'create_tiket'. Did you mean 'create_ticket'?"),
        ("{strategies: [base46]}", "unknown strategy 'base46'. Did you mean 'base64'?"),
        ("{strategies: [pair]}", "strategy 'pair' is not an offline strategy"),
        ("{strategies: [crescendo]}", "strategy 'crescendo' needs an attacker model"),
        ("{goals: [policy]}", "add `policy: <your rule>`"),
        ("{attacker: local/smollm2}", "redteam.attacker: an attacker model rewrites attacks by"),
        ("{rounds: 3}", "redteam.rounds: `rounds` counts an attacker model's rewrites"),
        ("{goals: [prompt_leak:x]}", "only `field:NAME` and `tool:NAME`"),
    ],
)
def test_a_section_naming_what_the_suite_lacks_is_located(
    tmp_path: Path, section: str, message: str
) -> None:
    text = _error(tmp_path, BASE + f"redteam: {section}\n")
    assert "suite.yaml:15:" in text
    assert message in text


def test_field_without_a_response_model_and_tool_without_tools(tmp_path: Path) -> None:
    text = "system: Be nice.\ntest_cases: [{id: a, query: hi}]\nredteam: {goals: [field, tool]}\n"
    error = _error(tmp_path, text)
    assert "suite.yaml:3:" in error
    assert "redteam.goals[0]: the `field` goal attacks structured output, and the suite has no " \
        "response model" in error  # fmt: skip
    assert "redteam.goals[1]: the `tool` goal needs tools, and the suite offers none" in error


def test_a_fixed_field_without_a_known_answer_cannot_be_attacked(tmp_path: Path) -> None:
    text = BASE.replace("source: {type: string}", "source: {enum: [a, b]}")
    error = _error(tmp_path, text + "redteam: {goals: ['field:source']}\n")
    assert "field 'source' has fixed values (a, b)" in error
    assert "give a case `expected: {source: ...}`" in error


def test_a_suite_with_nothing_to_attack(tmp_path: Path) -> None:
    error = _error(tmp_path, "test_cases: [{id: a, query: hi}]\nredteam: {seed: 1}\n")
    assert "suite.yaml:2:" in error
    assert "redteam: the suite has nothing to attack" in error


def test_a_variant_without_the_canary_cannot_carry_the_prompt_leak_goal(tmp_path: Path) -> None:
    text = (
        "prompts:\n"
        "  plain:\n"
        "    - {role: system, content: You are a bot.}\n"
        "    - {role: user, content: '{{ query }}'}\n"
        "test_cases: [{id: a, query: hi}]\n"
        "redteam: {goals: [prompt_leak, secret_leak],\n"
        "          strategies: [context_document, tool_output]}\n"
    )
    error = _error(tmp_path, text)
    assert "redteam.goals[0]: goal 'prompt_leak' cannot be used: prompt variant 'plain' has its " \
        "own system message without {{ canary }}" in error  # fmt: skip
    assert "redteam.goals[1]: goal 'secret_leak' cannot be used: prompt variant 'plain' never " \
        "shows the case's documents" in error  # fmt: skip
    assert "redteam.strategies[1]: strategy 'tool_output' cannot be used here: its replayed " \
        "`messages` cannot be used with the suite's `prompts:` variants" in error  # fmt: skip


def test_a_target_is_attacked_through_the_user_message_only(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def answer(query):\n    return 'ok'\n", encoding="utf-8")
    text = (
        "target: app.py:answer\ntest_cases: [{id: a, query: hi}]\n"
        "redteam: {goals: [exfiltration, prompt_leak], strategies: [direct, context_document]}\n"
    )
    error = _error(tmp_path, text)
    assert "redteam.goals[1]: goal 'prompt_leak' cannot be used: the suite's `target` is given " \
        "the query alone" in error  # fmt: skip
    assert "redteam.strategies[1]: strategy 'context_document' cannot be used here" in error


def test_validate_and_generate_exit_2_with_the_located_problem(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + "redteam: {goals: [feild]}\n", encoding="utf-8")
    for command in (["validate", str(path)], ["redteam", "generate", str(path), "-o", "x.yaml"]):
        done = CliRunner().invoke(main, command)
        assert done.exit_code == 2, done.output
        assert "suite.yaml:15:19: redteam.goals[0]" in done.output
        assert "Did you mean 'field'?" in done.output
        assert "Traceback" not in done.output
    assert not (tmp_path / "x.yaml").exists()


def test_generate_needs_a_redteam_section(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE, encoding="utf-8")
    done = CliRunner().invoke(main, ["redteam", "generate", str(path), "-o", "x.yaml"])
    assert done.exit_code == 2
    assert "the suite has no `redteam:` section" in done.output


def test_generate_never_writes_over_its_own_suite(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + "redteam: {seed: 1}\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["redteam", "generate", str(path), "-o", str(path)])
    assert done.exit_code == 2
    assert "this is SUITE itself" in done.output
    assert path.read_text(encoding="utf-8").endswith("redteam: {seed: 1}\n")
