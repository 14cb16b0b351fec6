"""Floats in a JSON report from stored results: searched for in the stored text, not the report.

`stored_items` asks `suspect` of each stored text whether pydantic-core may have spelt a
float otherwise than Python, and lets `indented` skip its own search when none was. That
holds only if the report holds no such float its source did not: the rounded latency and
cost included.
"""

from __future__ import annotations

import json
import math
import random
import struct

from pydantic_core import from_json, to_json

from promptum.reporting._indented import indented, suspect
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


def test_a_source_without_suspect_floats_needs_no_respelling() -> None:
    for value in _floats():
        data = {"latency_ms": value, "cost_usd": value, "score": value}
        text = to_json(data).decode()
        decoded = from_json(text)
        decoded["latency_ms"] = latency_ms(decoded["latency_ms"])
        decoded["cost_usd"] = cost_usd(decoded["cost_usd"])
        expected = json.dumps(decoded, ensure_ascii=False, indent=2)
        assert indented(decoded, respell=suspect(text)) == expected, repr(value)


def test_respelling_is_still_made_when_asked() -> None:
    data = {"cost_usd": 4.5e-07, "other": 1e-05}
    assert suspect(to_json(data).decode())
    assert indented(data) == json.dumps(data, indent=2)
    assert indented(data, respell=False) != json.dumps(data, indent=2)  # what it spares
