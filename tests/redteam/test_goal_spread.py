"""A goal with several targets spreads its cases over the strategies, then over its targets."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from promptum.redteam import Carrier, RedteamSpec, SuiteFacts, generate_cases, strategy_names

_TEXT = {"type": "string"}


def _tool(name: str, param: str) -> dict[str, Any]:
    parameters = {"type": "object", "properties": {param: _TEXT}, "required": [param]}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


# Three fields the `field` goal aims at (one open, one closed with two legitimate answers
# known) and three tools with a text argument: several aims per goal.
FACTS = SuiteFacts(
    response_schema={
        "type": "object",
        "properties": {
            "answer": _TEXT,
            "source": {"enum": ["refunds", "shipping"]},  # each case's other is its target
        },
    },
    tools=[_tool("create_ticket", "summary"), _tool("lookup", "order"), _tool("mail", "to")],
    system="You are the support bot.",
    carriers=[
        Carrier("How long do refunds take?", {"source": "refunds"}),
        Carrier("When will my order ship?", {"source": "shipping"}),
    ],
)
ONE_REQUEST = len(strategy_names()) - 1  # crescendo needs an attacker model


def _strategy(case: dict[str, Any]) -> str:
    (name,) = [t.removeprefix("strategy:") for t in case["tags"] if t.startswith("strategy:")]
    return name


def _aim(case: dict[str, Any]) -> str:
    """What the case aims at: its detector, without the strategy's text."""
    return json.dumps(case.get("attack_target") or case.get("checks"), sort_keys=True)


def _attacks(goal: str, per_goal: int, seed: int = 0) -> list[dict[str, Any]]:
    spec = RedteamSpec(goals=[goal], per_goal=per_goal, seed=seed)
    return [c for c in generate_cases(spec, FACTS) if "redteam" in c["tags"]]


@pytest.mark.parametrize("goal", ["field", "tool"])
@pytest.mark.parametrize("per_goal", [1, 3, 7, ONE_REQUEST, 2 * ONE_REQUEST])
def test_n_cases_of_a_goal_cover_n_strategies_up_to_all_of_them(goal: str, per_goal: int) -> None:
    cases = _attacks(goal, per_goal)
    assert len(cases) == per_goal
    assert len({_strategy(c) for c in cases}) == min(per_goal, ONE_REQUEST)


@pytest.mark.parametrize("goal", ["field", "tool"])
def test_a_goals_targets_are_spread_too_and_each_strategy_meets_each_target(goal: str) -> None:
    targets = len({_aim(c) for c in _attacks(goal, 200)})
    assert targets == 3
    few = _attacks(goal, 3)
    assert len({_aim(c) for c in few}) == 3  # three cases: three strategies and three targets
    every = _attacks(goal, targets * ONE_REQUEST)
    pairs = Counter((_strategy(c), _aim(c)) for c in every)
    assert len(pairs) == targets * ONE_REQUEST
    assert set(pairs.values()) == {1}


def test_the_spread_depends_on_the_seed_and_is_the_same_for_the_same_seed() -> None:
    first = [_strategy(c) for c in _attacks("tool", 3, seed=1)]
    assert first == [_strategy(c) for c in _attacks("tool", 3, seed=1)]
    others = {tuple(_strategy(c) for c in _attacks("tool", 3, seed=s)) for s in range(2, 8)}
    assert len(others | {tuple(first)}) > 1
