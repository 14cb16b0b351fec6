"""A conversation written in a suite file, run by `promptum run` on the embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main

SUITE = """\
name: chat
models: [local/smollm2]
defaults: {params: {temperature: 0, max_tokens: 24}}
test_cases:
  - id: four-turns
    turns:
      - query: "What is the capital of France?"
        checks: [{type: regex, value: '\\w'}]
      - query: "And what is 2+2?"
        checks: [{type: regex, value: '\\w'}]
      - query: "You said: {{ turns[1].reply }}. Now say hello."
        checks: [{type: contains, value: ZEBRA-QUOKKA}]
      - query: "Thank you!"
"""


@pytest.mark.slow
@pytest.mark.embedded_model
def test_a_suite_conversation_failing_at_turn_3_exits_1_and_names_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("chat.yaml").write_text(SUITE, encoding="utf-8")
    outcome = CliRunner().invoke(main, ["run", "chat.yaml", "--no-cache", "-o", "out.json"])
    assert outcome.exit_code == 1, outcome.output
    assert "turn 3: " in outcome.output
    (result,) = json.loads(Path("out.json").read_text(encoding="utf-8"))["results"]
    assert result["status"] == "fail"
    turns = result["turns"]
    assert [t["status"] for t in turns] == ["pass", "pass", "fail", "pass"]
    # Turn 3's query was rendered with turn 2's real reply.
    assert turns[2]["query"] == f"You said: {turns[1]['completion']['text']}. Now say hello."
    assert all(t["completion"]["text"].strip() for t in turns)
