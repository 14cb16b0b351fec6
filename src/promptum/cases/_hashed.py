"""How the parts of a case are written in the resume fingerprint: as JSON data, or its text.

A case's fields name these in their `Hashed` roles (`promptum.cases._roles`). What they
write must not change between versions: a resume finds the journal of a run interrupted
before an upgrade by it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, fields
from json.encoder import encode_basestring_ascii
from typing import Any

from promptum.cases._parts import (
    ConversationGrading,
    Criterion,
    GenerationParams,
    JudgeConfig,
    Simulation,
    Turn,
)
from promptum.cases._roles import role_table
from promptum.checks import CheckDefinition
from promptum.validation import Validator
from promptum.values.case_result import Message
from promptum.values.content import KEYED


def as_json(value: Any) -> str:
    """The fingerprint's JSON of `value`: sorted keys, anything else as its `str`."""
    return json.dumps(value, sort_keys=True, default=str)


_LATER_KEYS = ("metric", "weight", "transform")
"""Keys of a check (and `metric` of a criterion) added after fingerprints were first taken:
hashed only when set, so a case without them keeps the fingerprint it had before."""


def _without_unset_later_keys(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None or k not in _LATER_KEYS}


def string_text(value: Any) -> str:
    """What json.dumps writes for a string, without its encoder's set-up per call."""
    return encode_basestring_ascii(value) if type(value) is str else as_json(value)


def messages_data(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The messages as JSON data, each content part as its digest (not its path)."""
    return [message.model_dump(context=KEYED) for message in messages]


def messages_text(texts: Sequence[tuple[str, str]]) -> str:
    """The fingerprint's JSON of plain messages, given as (role, content)."""
    # What json.dumps(sort_keys=True) writes for [{"content": ..., "role": ...}, ...].
    encode = encode_basestring_ascii
    messages = ", ".join([f'{{"content": {encode(t)}, "role": {encode(r)}}}' for r, t in texts])
    return f"[{messages}]"


def messages_json(messages: tuple[Message, ...]) -> str:
    """`as_json(messages_data(messages))`, written directly for plain messages."""
    texts = []
    for message in messages:
        # A plain message dumps as {"content", "role"} (see `Message`'s serializer): the
        # same text as json.dumps writes, without dumping the model (most of a row's cost).
        if type(message) is not Message or message.tool_calls is not None:
            return as_json(messages_data(messages))
        if message.tool_call_id is not None or type(message.content) is not str:
            return as_json(messages_data(messages))
        if message.parts is not None:
            return as_json(messages_data(messages))
        texts.append((message.role, message.content))
    return messages_text(texts)


_PARAMS = role_table(GenerationParams).hashed


def params_data(params: GenerationParams) -> dict[str, Any]:
    """The fingerprint's data of `params`: each field as its roles say (a new one when set)."""
    data: dict[str, Any] = {}
    for item in _PARAMS:
        value = getattr(params, item.name)
        if not item.hashed_now(value):
            continue
        data[item.key] = value if item.hashed.encode is None else item.hashed.encode(value)
    return data


def validator_data(validator: Validator | None) -> str | None:
    """The validator as its description."""
    return None if validator is None else validator.describe()


def check_data(check: CheckDefinition) -> dict[str, Any]:
    """One check as JSON data."""
    return _without_unset_later_keys(check.model_dump())


def _criteria(criteria: tuple[Criterion, ...]) -> list[dict[str, Any]]:
    return [_without_unset_later_keys(asdict(criterion)) for criterion in criteria]


def judge_data(config: JudgeConfig | None) -> dict[str, Any] | None:
    """The judge as JSON data."""
    if config is None:
        return None
    data = asdict(config)
    data["criteria"] = [_without_unset_later_keys(c) for c in data["criteria"]]
    return data


def _turn(turn: Turn) -> dict[str, Any]:
    # Not `source`: moving a turn within its file does not change what it asks.
    data = {
        "query": turn.query,
        "reads_turns": turn.reads_turns,
        "checks": [check_data(check) for check in turn.checks],
        "expected": turn.expected,
        "attack_target": turn.attack_target,
        "criteria": _criteria(turn.criteria),
    }
    if turn.parts:  # by digest, not path; a turn without parts hashes as it always has
        data["parts"] = [part.model_dump(context=KEYED) for part in turn.parts]
    return data


def turns_data(turns: tuple[Turn, ...]) -> list[dict[str, Any]]:
    """A conversation's scripted turns as JSON data."""
    return [_turn(turn) for turn in turns]


def simulation_data(simulation: Simulation) -> dict[str, Any]:
    """A simulated user as JSON data."""
    data = {f.name: getattr(simulation, f.name) for f in fields(simulation)}
    data["stop"] = [check_data(check) for check in simulation.stop]
    return data


def conversation_data(grading: ConversationGrading) -> dict[str, Any]:
    """A conversation's own grading as JSON data."""
    return {
        "checks": [check_data(check) for check in grading.checks],
        "criteria": _criteria(grading.criteria),
    }
