"""Small floats in indented JSON are respelt as Python spells them, and only where they are values.

pydantic-core spells ``5.4e-6`` and ``0.00001`` where `json.dumps` spells ``5.4e-06`` and
``1e-05``; `indented` rewrites those numbers, never the same characters inside a string.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from promptum.reporting._indented import indented

TRICKY: list[Any] = [
    5.4e-6,
    -1e-5,
    [5.4e-6, -2.5e-7, 10.00001, 100, 0.0001234, 1e-4, 0.0],
    {"cost_usd": 5.4e-6, "latency_ms": 0.00001, "tokens": 12},
    {"text": "costs 5.4e-6 and 0.00001, or 1e-05"},
    {"text": 'a quote and colon: \\": 5e-6'},
    {'key\\"': 5e-6, "end\\": 1e-5, "\\\\": -3e-7},
    {"text": "line\n  5e-6 after a break", "list": ["5e-6", " 0.00001", 1.5e-9]},
    {"nested": [{"score": 4.9e-10, "id": "case-1e-5"}, [[0.00002]]]},
    {"e-": "e-", "0.0000": 0.00003, "1e-5": 1e-5},
]


@pytest.mark.parametrize("data", TRICKY)
def test_indented_writes_what_json_dumps_writes(data: Any) -> None:
    assert indented(data) == json.dumps(data, ensure_ascii=False, indent=2)


def _text(rng: random.Random) -> str:
    return "".join(
        rng.choice(['"', "\\", ":", " ", "\n", "5", "e-", "0.0000", "7", "x"]) for _ in range(8)
    )


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(6 if depth < 3 else 3)
    if kind == 0:
        return rng.uniform(-1, 1) * 10.0 ** rng.randint(-12, 3)
    if kind == 1:
        return _text(rng)
    if kind == 2:
        return rng.randint(-5, 10**6)
    if kind == 3:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {_text(rng): _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def test_random_documents_of_strings_that_look_like_numbers() -> None:
    rng = random.Random(37)
    for _ in range(500):
        data = _value(rng, 0)
        assert indented(data) == json.dumps(data, ensure_ascii=False, indent=2), repr(data)
