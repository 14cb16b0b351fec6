"""Floats in a JSON report from stored results are spelt as Python spells them.

pydantic-core spells a float below 1e-4 its own way (``4.5e-7``); `indented` finds each such
number value by the line it ends, or the comma that ends it, and spells it again, leaving
the same characters inside strings as they are. Latency and cost are rounded first, as the
report writes them.
"""

from __future__ import annotations

import json
import math
import random
import struct

from pydantic_core import from_json, to_json

from promptum.reporting._indented import indented
from promptum.reporting._numbers import cost_usd, latency_ms


def _floats() -> list[float]:
    rng = random.Random(2028)
    values = [0.0, -0.0, 1e-4, 9.99999e-5, 0.00015, 0.05, 0.04999, 1e16, 1.5e-9, 4.9e-10]
    for _ in range(4000):
        values.append(rng.uniform(-1, 1) * 10.0 ** rng.randint(-14, 18))
    for _ in range(1000):  # any bit pattern that is a finite float
        (value,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(value):
            values.append(value)
    return values


def test_rounded_latency_and_cost_are_spelt_as_python_spells_them() -> None:
    for value in _floats():
        data = {"latency_ms": value, "cost_usd": value, "score": value, "in": [value, value]}
        decoded = from_json(to_json(data).decode())
        decoded["latency_ms"] = latency_ms(decoded["latency_ms"])
        decoded["cost_usd"] = cost_usd(decoded["cost_usd"])
        assert indented(decoded) == json.dumps(decoded, ensure_ascii=False, indent=2), repr(value)


def test_a_number_inside_a_string_is_left_as_it_is() -> None:
    data = {
        "text": "cost 4.5e-7, then 0.00001",
        "line": "4.5e-7",
        "4.5e-7": 4.5e-07,
        "list": ["1e-5", 1e-05, "x 2.5e-8,", 2.5e-08],
    }
    assert indented(data) == json.dumps(data, ensure_ascii=False, indent=2)
    assert '"cost 4.5e-7, then 0.00001"' in indented(data)
