"""Checks throughput: 100,000 responses × the ten check types, against a hand-written loop.

All sides read the same `Completion` objects and do the same string, regex and JSON work.
The first hand-written loop only collects booleans; the second also formats a reason for each
failure, as promptum's `CheckResult`s carry one.
Run: .venv/bin/python benchmarks/checks.py [--responses N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable

from promptum import Completion
from promptum.checks import CheckDefinition, evaluate_checks

DEFINITIONS = [
    CheckDefinition(type="contains", value='"name"'),
    CheckDefinition(type="not_contains", value="As an AI"),
    CheckDefinition(type="regex", value=r"\d{3}-\d{4}"),
    CheckDefinition(type="not_regex", value=r"(?i)sorry|apolog"),
    CheckDefinition(type="exact_match", value="42"),
    CheckDefinition(type="is_valid_json"),
    CheckDefinition(type="max_latency_ms", value=5000),
    CheckDefinition(type="max_cost_usd", value=0.01),
    CheckDefinition(type="min_length", value=10),
    CheckDefinition(type="max_length", value=2000),
]

SHAPES = [
    '{{"name": "user{i}", "phone": "555-{i:04d}", "tags": ["a", "b"]}}',
    '```json\n{{"name": "user{i}", "id": {i}}}\n```',
    "The answer for case {i} is 42, call 555-1234 if needed.",
    "I'm sorry, as an AI I cannot help with request {i}.",
    "42",
]


def make_completions(count: int) -> list[Completion]:
    """Build a realistic, reproducible mix of responses and figures."""
    rng = random.Random(7)
    return [
        Completion(
            text=rng.choice(SHAPES).format(i=i),
            latency_ms=rng.uniform(100, 8000),
            cost_usd=rng.choice([None, rng.uniform(0, 0.02)]),
        )
        for i in range(count)
    ]


def _json_ok(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        stripped = text.strip()
        if not (stripped.startswith("```") and stripped.endswith("```")) or len(stripped) < 6:
            return False
        body = stripped[3:-3]
        first, _, rest = body.partition("\n")
        try:
            json.loads(rest if first.strip().isidentifier() else body)
            return True
        except ValueError:
            return False


def hand_written(completions: list[Completion]) -> int:
    """The baseline: the same checks, inline, collecting booleans."""
    phone = re.compile(r"\d{3}-\d{4}")
    apology = re.compile(r"(?i)sorry|apolog")
    failures = 0
    for c in completions:
        t = c.text
        results = [
            '"name"' in t,
            "As an AI" not in t,
            phone.search(t) is not None,
            apology.search(t) is None,
            t.strip() == "42",
            _json_ok(t),
            c.latency_ms is not None and c.latency_ms <= 5000,
            c.cost_usd is not None and c.cost_usd <= 0.01,
            len(t) >= 10,
            len(t) <= 2000,
        ]
        failures += results.count(False)
    return failures


def hand_written_with_reasons(completions: list[Completion]) -> int:
    """The baseline that also explains each failure, as a person reading results needs."""
    phone = re.compile(r"\d{3}-\d{4}")
    apology = re.compile(r"(?i)sorry|apolog")
    failures = 0
    for c in completions:
        t = c.text
        reasons = []
        if '"name"' not in t:
            reasons.append("expected to contain '\"name\"'")
        if "As an AI" in t:
            reasons.append("expected not to contain 'As an AI'")
        if phone.search(t) is None:
            reasons.append("expected to match /\\d{3}-\\d{4}/")
        if (found := apology.search(t)) is not None:
            reasons.append(f"expected not to match, found {found.group(0)!r}")
        if t.strip() != "42":
            reasons.append(f"expected '42', got {t.strip()!r}")
        if not _json_ok(t):
            reasons.append("not valid JSON")
        if c.latency_ms is None or c.latency_ms > 5000:
            reasons.append(f"latency {c.latency_ms} ms > 5000 ms")
        if c.cost_usd is None or c.cost_usd > 0.01:
            reasons.append(f"cost {c.cost_usd} > 0.01")
        if len(t) < 10:
            reasons.append(f"length {len(t)} < 10")
        if len(t) > 2000:
            reasons.append(f"length {len(t)} > 2000")
        failures += len(reasons)
    return failures


def with_promptum(completions: list[Completion]) -> int:
    """promptum: `evaluate_checks` on each completion."""
    failures = 0
    for c in completions:
        failures += [r.passed for r in evaluate_checks(DEFINITIONS, c)].count(False)
    return failures


def best_of(repeats: int, func: Callable[[list[Completion]], int], data: list[Completion]) -> float:
    """Best wall time of several runs, which is the least disturbed by a noisy machine."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func(data)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Run both sides alternately and print throughput and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    completions = make_completions(args.responses)
    expected = hand_written(completions)
    assert expected == hand_written_with_reasons(completions) == with_promptum(completions)

    baseline = best_of(args.repeats, hand_written, completions)
    explained = best_of(args.repeats, hand_written_with_reasons, completions)
    promptum = best_of(args.repeats, with_promptum, completions)
    checks = args.responses * len(DEFINITIONS)
    print(f"responses: {args.responses:,} × {len(DEFINITIONS)} check types = {checks:,} checks")
    print(f"hand-written loop, booleans: {baseline:.3f} s ({checks / baseline:,.0f} checks/s)")
    print(f"hand-written loop, reasons:  {explained:.3f} s ({checks / explained:,.0f} checks/s)")
    print(f"promptum evaluate_checks:    {promptum:.3f} s ({checks / promptum:,.0f} checks/s)")
    print(f"ratio promptum / booleans loop: {promptum / baseline:.2f}x (target <= 1.5x)")
    print(f"ratio promptum / reasons loop:  {promptum / explained:.2f}x")


if __name__ == "__main__":
    main()
