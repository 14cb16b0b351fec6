"""A conversation's finished turns as lines of the resume journal, and back.

A line is ``{"turn": {"unit": [key, variant, model, repeat], "number": n, "calls": [...]}}``
with every call the turn made (its request's hash and the completion): a resumed run
replays them instead of asking again. Versions before conversations skip such lines.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from promptum.providers import ModelRequest
from promptum.values.completion import Completion

JournalKey = tuple[str, str, str, int]
"""(``suite/case`` id, variant, model, repeat): a result's identity, as the runner keys it."""


@dataclass(frozen=True, slots=True)
class TurnCall:
    """One call a conversation's turn made (a hash of its request) and what came back."""

    request: str
    completion: Completion


def request_digest(request: ModelRequest) -> str:
    """A hash of a request: a replayed call must be the very call asked again.

    Not its `vars`, the same for every call of a conversation, and which the Python API
    lets hold any object (not all JSON).
    """
    data = json.dumps(request.model_dump(exclude={"vars"}), sort_keys=True, default=str)
    return hashlib.sha256(data.encode()).hexdigest()[:32]


TURN_LINE = '{"turn"'
"""How a journalled turn's line starts; a result's line never does."""


def turn_line(unit: JournalKey, number: int, calls: list[TurnCall]) -> str:
    """One finished turn of `unit` as a journal line (without its newline)."""
    made = [
        {"request": call.request, "completion": call.completion.model_dump(mode="json")}
        for call in calls
    ]
    return json.dumps(
        {"turn": {"unit": list(unit), "number": number, "calls": made}}, ensure_ascii=False
    )


def turn_calls(path: Path, finished: set[JournalKey]) -> dict[JournalKey, list[TurnCall]]:
    """The calls of the journalled turns of every conversation not finished, in order."""
    calls: dict[JournalKey, list[TurnCall]] = defaultdict(list)
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if not line.startswith(TURN_LINE):
                continue
            try:
                turn = json.loads(line)["turn"]
                key, variant, model, repeat = turn["unit"]
                unit = (str(key), str(variant), str(model), int(repeat))
                made = [
                    TurnCall(str(c["request"]), Completion.model_validate(c["completion"]))
                    for c in turn["calls"]
                ]
            except (ValueError, KeyError, TypeError, ValidationError):
                continue  # a line cut short when the process was killed mid-write
            if unit not in finished:
                calls[unit] += made
    return dict(calls)
