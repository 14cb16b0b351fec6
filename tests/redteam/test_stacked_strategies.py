"""Stacked strategies: `[role_play, base64]` composed in order.

A stack's attack is each strategy applied to the previous one's attack; its cases and the
attack success rates name it `role_play+base64`. Against an app on 127.0.0.1 that obeys only
a role play hidden in Base64 (tests/support/attack_server.py), the stack finds the weakness
and its two strategies alone do not.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from promptum.cli import main
from promptum.redteam._data import data
from tests.support.attack_server import acme_app, attack_server
from tests.support.cli import usage_error

SUITE = """\
tools:
  - type: function
    function:
      name: lookup_order
      parameters: {{type: object, properties: {{order: {{type: string}}}}, required: [order]}}
test_cases:
  - id: refunds
    query: How long do refunds take?
redteam:
  goals: [field]
  strategies: {strategies}
  per_goal: {per_goal}
  seed: 5
"""
"""Suite keys after Acme's app (`acme_app`): a tool, one case, and a red team of `{strategies}`."""

_HEAD_LINES = len(acme_app("").splitlines())
STRATEGIES_LINE = _HEAD_LINES + SUITE.splitlines().index("  strategies: {strategies}") + 1


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _suite(strategies: str, per_goal: int = 6, base_url: str = "http://127.0.0.1:9/v1") -> Path:
    path = Path("suite.yaml")
    text = acme_app(base_url) + SUITE.format(strategies=strategies, per_goal=per_goal)
    path.write_text(text, encoding="utf-8")
    return path


def _generated(*options: str) -> list[dict[str, Any]]:
    """The attack cases `promptum redteam generate` writes from suite.yaml."""
    done = CliRunner().invoke(
        main, ["redteam", "generate", "suite.yaml", "-o", "out.yaml", *options]
    )
    assert done.exit_code == 0, done.output
    cases: list[dict[str, Any]] = yaml.safe_load(Path("out.yaml").read_text("utf-8"))["test_cases"]
    return [case for case in cases if "redteam" in case["tags"]]  # the attacks, not controls


def _strategy(case: dict[str, Any]) -> str:
    (tag,) = [tag for tag in case["tags"] if tag.startswith("strategy:")]
    return str(tag.removeprefix("strategy:"))


def _role_play(text: str) -> str | None:
    """The payload of a role_play attack, if `text` is one, word for word."""
    for template in data().strategies["role_play"].templates:
        head, _, tail = template.partition("$payload")
        if text.startswith(head) and text.endswith(tail):
            return text[len(head) : len(text) - len(tail)]
    return None


def _hidden(text: str) -> str:
    """What a base64 attack hides: its one Base64 run, decoded."""
    assert "Base64" in text  # said by every template of base64
    (run,) = re.findall(r"[A-Za-z0-9+/]{24,}={0,2}", text)
    return base64.b64decode(run, validate=True).decode()


def test_a_stack_hides_the_role_play_attack_whole_in_base64() -> None:
    _suite("[role_play, base64, [role_play, base64]]")
    cases = _generated()
    stacked = [case for case in cases if case["id"].startswith("rt-field-role_play+base64-")]
    assert len(stacked) == 2
    for case in stacked:
        assert _strategy(case) == "role_play+base64"
        # Decoding the Base64 gives the role play back, word for word, with the goal's payload.
        payload = _role_play(_hidden(case["query"]))
        assert payload is not None, case["query"]
        (detector,) = case["checks"]
        marker = detector["value"]["value"]
        assert marker in payload
        assert marker not in case["query"]  # not readable without decoding
    singles = [case for case in cases if _strategy(case) == "role_play"]
    assert all(_role_play(case["query"]) is not None for case in singles)


def test_a_stack_may_end_in_an_indirect_strategy() -> None:
    _suite("[[base64, tool_output]]", per_goal=2)
    (case, _) = _generated()[:2]
    assert _strategy(case) == "base64+tool_output"
    result = case["messages"][-1]
    assert result["role"] == "tool"
    assert "Base64" in result["content"]  # base64's attack, inside a tool's result


def test_sampled_stacks_are_drawn_by_the_seed() -> None:
    _suite("[role_play, base64, rot13, leetspeak]", per_goal=14)
    first = _generated("--stacks", "3")
    header = Path("out.yaml").read_text("utf-8").splitlines()[0]
    assert "--per-goal" not in header
    assert "--stacks 3" in header
    stacks = {_strategy(case) for case in first if "+" in _strategy(case)}
    assert len(stacks) == 3
    for stack in stacks:
        inner, outer = stack.split("+")
        assert inner != outer
        assert {inner, outer} <= {"role_play", "base64", "rot13", "leetspeak"}
    again = Path("out.yaml").read_bytes()
    assert _generated("--stacks", "3") == first
    assert Path("out.yaml").read_bytes() == again


@pytest.mark.parametrize(
    ("strategies", "where", "message"),
    [
        ("[role_play, []]", "redteam.strategies[1]", "an empty stack generates no attack"),
        (
            "[[role_play, base46]]",
            "redteam.strategies[0][1]",
            "unknown strategy 'base46'. Did you mean 'base64'?",
        ),
        ("[[pair, base64]]", "redteam.strategies[0][0]", "strategy 'pair' is not an offline"),
        (
            "[[context_document, base64]]",
            "redteam.strategies[0]",
            "cannot stack context_document+base64: strategy 'context_document' delivers its "
            "attack as a document of the case's context, not as a message the next strategy "
            "can carry: put it last in the stack",
        ),
        (
            "[[role_play, crescendo]]",
            "redteam.strategies[0]",
            "cannot stack role_play+crescendo: strategy 'crescendo' is a conversation",
        ),
    ],
)
def test_a_bad_stack_is_a_located_error(strategies: str, where: str, message: str) -> None:
    _suite(strategies)
    for command in (
        ["validate", "suite.yaml"],
        ["redteam", "generate", "suite.yaml", "-o", "x.yaml"],
    ):
        output = usage_error(*command)
        (line,) = [line for line in output.splitlines() if where + ":" in line]
        assert line.startswith(f"suite.yaml:{STRATEGIES_LINE}:"), line
        assert message in line
    assert not Path("x.yaml").exists()


def test_only_the_stack_finds_an_app_that_yields_to_a_role_play_in_base64() -> None:
    with attack_server("yield_to_stack") as server:
        _suite("[role_play, base64, [role_play, base64]]", per_goal=9, base_url=server.base_url)
        done = CliRunner().invoke(main, ["run", "suite.yaml", "--no-store", "-o", "r.json"])
    report = json.loads(Path("r.json").read_text("utf-8"))
    (column,) = report["asr"]["columns"]
    rates = {entry["strategy"]: entry for entry in column["strategies"]}
    assert set(rates) == {"role_play", "base64", "role_play+base64"}, done.output
    for strategy in ("role_play", "base64"):
        assert rates[strategy]["succeeded"] == 0
        assert rates[strategy]["resisted"] == rates[strategy]["attempts"] == 3
    stack = rates["role_play+base64"]
    assert stack["succeeded"] == stack["attempts"] == 3
    assert stack["asr"] == 1.0
