"""Checks throughput: 100,000 responses × the ten check types, against a hand-written loop.

All sides read the same `Completion` objects and do the same string, regex and JSON work.
The first hand-written loop only collects booleans; the second also formats a reason for each
failure quoting the response, as promptum's grades carry one. promptum is measured the way
the runner grades a response (`promptum.runner.grade`: every check's `Grade`), and through
`evaluate_checks`, the reference's `CheckResult` view over the same grades. The sides take
turns, each repeat, so that a machine busy with something else slows them alike, and each is
timed in CPU time of this process: time spent waiting for a core another program holds is
not the code's.
The second part times the everyday checks of issue 26 (starts_with, ends_with, contains_any,
contains_all, levenshtein, rouge, bleu) one type at a time, each against a hand-written loop
doing the same: the same string tests, and rapidfuzz, rouge-score and sacrebleu called
directly as a user would, with their own defaults where promptum's agree on these texts.
Run: .venv/bin/python benchmarks/checks.py [--responses N] [--repeats N] [--profile]
     [--part ten|everyday|both] [--everyday-responses N]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Callable

from rapidfuzz.distance import Levenshtein
from rouge_score.rouge_scorer import RougeScorer  # type: ignore[import-untyped]
from sacrebleu.metrics.bleu import BLEU

from promptum import Completion
from promptum.cases import Grading, TestCase
from promptum.checks import CheckDefinition, evaluate_checks
from promptum.runner import grade

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
            reasons.append(
                f"expected to contain '\"name\"', got {' '.join(t[:240].split())[:60]!r}"
            )
        if "As an AI" in t:
            reasons.append("expected not to contain 'As an AI'")
        if phone.search(t) is None:
            reasons.append(f"expected to match /\\d{{3}}-\\d{{4}}/, got {t[:60]!r}")
        if (found := apology.search(t)) is not None:
            reasons.append(f"expected not to match, found {found.group(0)!r}")
        if t.strip() != "42":
            reasons.append(f"expected '42', got {t.strip()[:80]!r}")
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


CASE = TestCase(id="bench", messages=(), grading=Grading(checks=tuple(DEFINITIONS)))


def with_promptum(completions: list[Completion]) -> int:
    """promptum as the runner grades: `grade(case, completion)`, one `Grade` per check."""
    failures = 0
    for c in completions:
        failures += [g.passed for g in grade(CASE, c)].count(False)
    return failures


def with_evaluate_checks(completions: list[Completion]) -> int:
    """promptum's reference API: `evaluate_checks`, `CheckResult`s read from the grades."""
    failures = 0
    for c in completions:
        failures += [r.passed for r in evaluate_checks(DEFINITIONS, c)].count(False)
    return failures


Side = Callable[[list[Completion]], int]


def best_of(repeats: int, sides: dict[str, Side], data: list[Completion]) -> dict[str, float]:
    """Each side's best CPU time of several turns, taken in turn: the least disturbed."""
    best = dict.fromkeys(sides, float("inf"))
    for _ in range(repeats):
        for name, func in sides.items():
            start = time.process_time()
            func(data)
            best[name] = min(best[name], time.process_time() - start)
    return best


def profile(data: list[Completion]) -> None:
    """Where promptum's time goes: cProfile of the graded side, by own time."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.runcall(with_promptum, data)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


REFERENCE = "The answer for case 7 is 42, call 555-1234 if needed."

Reasoned = Callable[[Completion], "str | None"]
"""A hand-written check of one response: None if it passes, else the reason, worded."""


def _quoted(text: str) -> str:
    return repr(" ".join(text[:240].split())[:60])


def _everyday_loops() -> dict[str, tuple[CheckDefinition, Reasoned]]:
    """Each everyday check type: its definition, and a hand-written test of one response."""
    rouge = RougeScorer(["rougeL"])
    bleu = BLEU(lowercase=True, effective_order=True)

    def starts(c: Completion) -> str | None:
        if c.text.lstrip().startswith("{"):
            return None
        return f"expected to start with '{{', got {_quoted(c.text)}"

    def ends(c: Completion) -> str | None:
        text = c.text.rstrip()
        return None if text.endswith(".") else f"expected to end with '.', got {_quoted(text)}"

    def any_of(c: Completion) -> str | None:
        if any(v in c.text for v in ("555", "sorry", "42")):
            return None
        return f"expected to contain any of '555', 'sorry', '42', got {_quoted(c.text)}"

    def all_of(c: Completion) -> str | None:
        folded = c.text.casefold()
        missing = [v for v in ("NAME", "phone") if v.casefold() not in folded]
        return f"missing {missing}, got {_quoted(c.text)}" if missing else None

    def distance(c: Completion) -> str | None:
        text = c.text.strip()
        found = Levenshtein.distance(text, "42")
        return None if found <= 2 else f"distance {found} > 2 from '42', got {_quoted(text)}"

    def rouge_l(c: Completion) -> str | None:
        score = round(rouge.score(REFERENCE, c.text)["rougeL"].fmeasure, 3)
        return None if score >= 0.75 else f"rougeL {score:.3f} < 0.75"

    def bleu_score(c: Completion) -> str | None:
        score = round(bleu.sentence_score(c.text, [REFERENCE]).score / 100, 3)
        return None if score >= 0.5 else f"BLEU {score:.3f} < 0.5"

    return {
        "starts_with": (CheckDefinition(type="starts_with", value="{"), starts),
        "ends_with": (CheckDefinition(type="ends_with", value="."), ends),
        "contains_any": (
            CheckDefinition(type="contains_any", value=["555", "sorry", "42"]),
            any_of,
        ),
        "contains_all (case_insensitive)": (
            CheckDefinition(type="contains_all", value=["NAME", "phone"], case_insensitive=True),
            all_of,
        ),
        "levenshtein": (
            CheckDefinition(type="levenshtein", value={"expected": "42", "max_distance": 2}),
            distance,
        ),
        "rouge (rougeL)": (
            CheckDefinition(type="rouge", value={"reference": REFERENCE, "variant": "rougeL"}),
            rouge_l,
        ),
        "bleu": (CheckDefinition(type="bleu", value=REFERENCE), bleu_score),
    }


def everyday(responses: int, repeats: int) -> None:
    """The everyday check types through `grade`, against hand-written loops wording reasons.

    All seven in one case, as a suite uses them, then each type alone (one check per
    response, so the fixed cost of grading a response weighs more).
    """
    completions = make_completions(responses)
    loops = _everyday_loops()
    print(f"\neveryday checks: {responses:,} responses (µs per response)")
    groups = {"all seven in one case": list(loops.values())}
    groups.update({name: [entry] for name, entry in loops.items()})
    for name, entries in groups.items():
        case = TestCase(id=name, messages=(), grading=Grading(checks=tuple(d for d, _ in entries)))
        tests = [test for _, test in entries]

        def by_hand(data: list[Completion], tests: list[Reasoned] = tests) -> int:
            return sum(test(c) is not None for c in data for test in tests)

        def by_promptum(data: list[Completion], case: TestCase = case) -> int:
            return sum(not g.passed for c in data for g in grade(case, c))

        assert by_hand(completions) == by_promptum(completions), name  # the same verdicts
        best = best_of(repeats, {"hand": by_hand, "promptum": by_promptum}, completions)
        hand, ours = (best[side] / responses * 1e6 for side in ("hand", "promptum"))
        print(
            f"{name + ':':33} hand-written loop {hand:6.2f}, promptum grade {ours:6.2f},"
            f" ratio {ours / hand:.2f}x"
        )


def main() -> None:
    """Run both sides alternately and print throughput and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="also profile promptum's side")
    parser.add_argument("--part", choices=("ten", "everyday", "both"), default="both")
    parser.add_argument("--everyday-responses", type=int, default=20_000)
    args = parser.parse_args()
    if args.part != "ten":
        everyday(args.everyday_responses, args.repeats)
        if args.part == "everyday":
            return
    completions = make_completions(args.responses)
    expected = hand_written(completions)
    assert expected == hand_written_with_reasons(completions) == with_promptum(completions)
    assert expected == with_evaluate_checks(completions)

    sides = {
        "hand-written loop, booleans": hand_written,
        "hand-written loop, reasons": hand_written_with_reasons,
        "promptum grade (grades)": with_promptum,
        "promptum evaluate_checks": with_evaluate_checks,
    }
    best = best_of(args.repeats, sides, completions)
    checks = args.responses * len(DEFINITIONS)
    print(f"responses: {args.responses:,} × {len(DEFINITIONS)} check types = {checks:,} checks")
    for name, seconds in best.items():
        print(f"{name + ':':29} {seconds:.3f} s ({checks / seconds:,.0f} checks/s)")
    graded, booleans = best["promptum grade (grades)"], best["hand-written loop, booleans"]
    reasons, evaluated = best["hand-written loop, reasons"], best["promptum evaluate_checks"]
    print(f"ratio promptum grade / booleans loop: {graded / booleans:.2f}x (target <= 1.2x)")
    print(f"ratio promptum grade / reasons loop:  {graded / reasons:.2f}x")
    print(f"ratio evaluate_checks / booleans loop: {evaluated / booleans:.2f}x")
    if args.profile:
        profile(completions)


if __name__ == "__main__":
    main()
