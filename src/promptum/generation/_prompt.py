"""What the generator model is asked: the application, then the one case wanted, as JSON."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from promptum.generation._aims import Aim
from promptum.generation._brief import Brief

SYSTEM = (
    "You write test cases for an AI application: realistic messages its users send. "
    "Reply with one JSON object and nothing else."
)
EXAMPLES_SHOWN = 5
"""Existing queries shown as examples of the application's users."""
UNANSWERABLE_BEHAVIOUR = (
    "Says that the information given does not answer this, instead of inventing an answer."
)

_ASKS = {
    "question": (
        "Write one new message a user could send to this application{tool}. "
        'Reply as {{"query": "...", "expected_behavior": "what a good answer does, in one '
        'sentence"}}.'
    ),
    "document": (
        "Write one question a user could ask that the passage below answers{tool}. Give the "
        "short answer and the exact words of the passage it comes from. Reply as "
        '{{"query": "...", "answer": "...", "quote": "...", "expected_behavior": "..."}}.'
    ),
    "two_documents": (
        "Write one question whose answer needs both passages below together. Reply as "
        '{{"query": "...", "answer": "...", "expected_behavior": "..."}}.'
    ),
    "constraint": (
        "Make this user message harder by adding one constraint (a format, a limit, a "
        'condition): "{base}". Reply as {{"query": "...", "expected_behavior": "..."}}.'
    ),
    "unanswerable": (
        "Write one question on the same subject as the passage below that the passage does "
        'NOT answer. Reply as {{"query": "..."}}.'
    ),
}


_FIELDS: dict[str, tuple[str, ...]] = {
    "question": ("query", "expected_behavior"),
    "document": ("query", "answer", "quote", "expected_behavior"),
    "two_documents": ("query", "answer", "expected_behavior"),
    "constraint": ("query", "expected_behavior"),
    "unanswerable": ("query",),
}
"""The string fields each kind's answer has, in order."""


EXPECTED = "expected."
"""The prefix of the answer's fields that give a response-model field's correct value."""


def enum_fields(brief: Brief) -> dict[str, list[str]]:
    """The response model's top-level fields with a few allowed texts: the generator picks one."""
    properties = (brief.response_schema or {}).get("properties") or {}
    return {
        name: list(field["enum"])
        for name, field in properties.items()
        if isinstance(field, Mapping)
        and isinstance(field.get("enum"), list)
        and all(isinstance(value, str) for value in field["enum"])
    }


def _asks_fields(aim: Aim) -> bool:
    """Whether the case states its answer's fields: not one whose right answer is "I can't"."""
    return aim.kind != "unanswerable"


def answer_schema(aim: Aim, enums: Mapping[str, list[str]]) -> dict[str, Any]:
    """The JSON Schema the generator's answer must follow.

    A model that can be held to one (structured output, the embedded model's grammar)
    answers nothing else.
    """
    properties: dict[str, Any] = {
        name: {"type": "string", "minLength": 1} for name in _FIELDS[aim.kind]
    }
    if _asks_fields(aim):
        properties |= {EXPECTED + name: {"enum": values} for name, values in enums.items()}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def messages(brief: Brief, aim: Aim) -> tuple[str, str]:
    """The system and user message asking for `aim`'s case."""
    parts = [_application(brief), _values(aim.values)]
    tool = f" that needs the tool `{aim.tool}`" if aim.tool else ""
    parts.append(_ASKS[aim.kind].format(tool=tool, base=aim.base or ""))
    enums = enum_fields(brief)
    if enums and _asks_fields(aim):
        listed = "; ".join(f"{EXPECTED}{name}: one of {', '.join(v)}" for name, v in enums.items())
        parts.append(f"Also give the value a correct answer has for each field: {listed}.")
    for number, passage in enumerate(aim.passages, start=1):
        parts.append(f"Passage {number}:\n<<<\n{passage.text}\n>>>")
    return SYSTEM, "\n\n".join(part for part in parts if part)


def _application(brief: Brief) -> str:
    """The application, as its suite describes it."""
    lines = ["The application:"]
    if brief.system:
        lines.append(f"- its instructions: {brief.system.strip()}")
    for tool in brief.tools:
        function = tool.get("function", {})
        lines.append(f"- a tool `{function.get('name')}`: {function.get('description', '')}")
    if brief.response_schema is not None:
        schema = json.dumps(brief.response_schema, sort_keys=True, separators=(",", ":"))
        lines.append(f"- it answers in JSON following this schema: {schema}")
    shown = list(brief.queries)[:EXAMPLES_SHOWN]
    if shown:
        lines.append("- messages its users send: " + "; ".join(json.dumps(q) for q in shown))
    return "\n".join(lines) if len(lines) > 1 else ""


def _values(values: Mapping[str, str]) -> str:
    """The template variables the case is written for."""
    if not values:
        return ""
    listed = ", ".join(f"{name} = {json.dumps(value)}" for name, value in values.items())
    return f"The message is sent with these settings: {listed}."
