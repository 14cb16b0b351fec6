"""A generated case, as a suite writes it, from what the generator proposed for an aim.

Its texts are written as `literal`s: a generator's words are never a template. Only
expectations the generator can justify are written: a fact checked with `contains` only
when the answer is words of its passage, a tool check when the case was asked to need it, a
field assertion for each enumerated field of the response model the generator gave a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptum.foundations.literal_text import literal
from promptum.generation._aims import Aim
from promptum.generation._prompt import EXPECTED, UNANSWERABLE_BEHAVIOUR

GENERATED_TAG = "generated"
MAX_FACT_CHARS = 60
"""An answer this short found in its passage is a fact the response must contain."""


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def generated_case(
    aim: Aim, proposed: Mapping[str, str], case_id: str, enums: Mapping[str, list[str]]
) -> dict[str, Any] | str:
    """The case for `aim` written from `proposed`, or why it is dropped.

    `enums`: the response model's fields with allowed values, whose value the generator gave.
    """
    case: dict[str, Any] = {"id": case_id, "query": literal(proposed["query"])}
    if aim.values:
        case["vars"] = dict(aim.values)
    if aim.passages:
        case["context"] = [literal(passage.text) for passage in aim.passages]
    found = _expectations(aim, proposed)
    if isinstance(found, str):
        return found
    case.update(found)
    expected = {
        name: proposed[EXPECTED + name]
        for name, values in enums.items()
        if proposed.get(EXPECTED + name) in values
    }
    if expected:
        case["expected"] = expected
    tags = [GENERATED_TAG, f"{GENERATED_TAG}:{aim.kind}"]
    case["tags"] = tags + [f"source:{passage.span}" for passage in aim.passages]
    return case


def _expectations(aim: Aim, proposed: Mapping[str, str]) -> dict[str, Any] | str:
    """The case's expected behaviour and checks, or why none can be justified."""
    if aim.kind == "unanswerable":
        return {"expected_behavior": UNANSWERABLE_BEHAVIOUR}
    found: dict[str, Any] = {}
    answer = proposed.get("answer")
    behaviour = proposed.get("expected_behavior") or (f"Answers: {answer}" if answer else None)
    if behaviour:
        found["expected_behavior"] = literal(behaviour)
    checks: list[dict[str, Any]] = []
    if aim.kind == "document":
        quote = proposed.get("quote")
        if quote is None or _plain(quote) not in _plain(aim.passages[0].text):
            return "its quote is not words of the passage"
        if answer and len(answer) <= MAX_FACT_CHARS and _plain(answer) in _plain(quote):
            checks.append({"type": "contains", "value": literal(answer), "case_insensitive": True})
    if aim.tool:
        checks.append({"type": "tool_called", "value": aim.tool})
    if checks:
        found["checks"] = checks
    return found or "no expectation it can justify"
