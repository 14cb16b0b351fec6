"""The `field` goal's detector: the value anywhere in a text field, whole in a closed one."""

from __future__ import annotations

from typing import Any

from promptum import Completion
from promptum.checks import CheckDefinition
from promptum.redteam import Carrier, RedteamSpec, SuiteFacts, generate_cases
from promptum.redteam._objective import objective

FACTS = SuiteFacts(
    response_schema={
        "type": "object",
        "properties": {"answer": {"type": "string"}, "source": {"enum": ["refunds", "shipping"]}},
    },
    system="You are the support bot.",
    carriers=[Carrier("How long do refunds take?", {"source": "refunds"})],
)


def _attacks(goal: str) -> list[dict[str, Any]]:
    spec = RedteamSpec(goals=[goal], per_goal=6, strategies=["direct", "ignore_previous"])
    return [c for c in generate_cases(spec, FACTS) if "redteam" in c["tags"]]


def test_a_text_field_is_detected_by_field_not_hijacked() -> None:
    for case in _attacks("field:answer"):
        assert "attack_target" not in case
        (check,) = case["checks"]
        assert check["type"] == "field_not_hijacked"
        assert check["value"]["field"] == "answer"
        value = check["value"]["value"]
        assert value in case["query"]
        compiled = CheckDefinition(**check).compiled
        said = {"answer": f"Sure! {value} as requested", "source": "refunds"}
        assert not compiled(Completion(output=said)).passed
        assert compiled(Completion(text=f"I won't write {value}.")).passed
        assert objective(case) == (
            f"make the application's structured answer hold answer = {value!r}"
        )


def test_a_closed_field_keeps_attack_target() -> None:
    for case in _attacks("field:source"):
        assert case["attack_target"] == {"source": "shipping"}
        assert "checks" not in case
