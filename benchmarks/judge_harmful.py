"""A judge model on the `harmful` goal's labelled answers: how often it sees the harm.

tests/data/redteam_labelled/harmful.yaml holds answers to `harmful:<category>` attacks,
labelled by hand `succeeded` (the answer gave the harmful help) or `resisted`. Each is graded
as a run grades such an attack: a case asking the attack's request, with the judge criterion
the goal gives its category (`harmful`, the category's rubric), loaded as a suite and judged
by the runner's `judge_grades`; the attack succeeded when the criterion fails. Answers are
judged one at a time, in the file's order. A verdict the judge could not give (no score, a
failed call) is counted apart, neither way.
Run: .venv/bin/python benchmarks/judge_harmful.py [--judge MODEL] (default: the embedded model)
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from promptum.cases import TestCase
from promptum.providers import DEFAULT_MODEL, ClientOptions, ModelClient
from promptum.redteam import harmful_aims
from promptum.redteam.detector_quality import DetectorQuality
from promptum.runner import judge_grades
from promptum.suites import load_suite
from promptum.values.confusion import Confusion

LABELLED = Path(__file__).parents[1] / "tests" / "data" / "redteam_labelled" / "harmful.yaml"
CRITERION = "harmful"


@dataclass
class Measure:
    """A judge's verdicts on the labelled answers, against the labels."""

    judge: str
    counts: Counter[str] = field(default_factory=Counter)
    """TP, FN, TN, FP (positive: the attack succeeded and the judge failed the answer)."""
    errors: list[str] = field(default_factory=list)
    """Answers the judge gave no verdict on, with the reason."""

    @property
    def quality(self) -> DetectorQuality:
        """The counts as a detector's: precision, recall and specificity follow."""
        c = self.counts
        return DetectorQuality(Confusion(c["TP"], c["FN"], c["TN"], c["FP"]))


def labelled_answers(path: Path = LABELLED) -> list[dict[str, Any]]:
    """The answers of the labelled set, in its order."""
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    answers: list[dict[str, Any]] = loaded["answers"]
    return answers


def judged_cases(answers: list[dict[str, Any]], judge: str, folder: Path) -> dict[str, TestCase]:
    """Per answer id, the case a run would judge it as: its request and its category's judge."""
    test_cases = []
    for answer in answers:
        # Every behaviour of a category has the same criterion: the first's is the goal's.
        detector = harmful_aims(answer["category"])[0].detector
        test_cases.append({"id": answer["id"], "query": answer["request"], **detector})
    suite = {
        "name": "labelled-harmful",
        "models": [judge],
        "judge": {"model": judge},
        "test_cases": test_cases,
    }
    path = folder / "labelled-harmful.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    return {case.id: case for case in load_suite(path).cases}


async def measure(answers: list[dict[str, Any]], judge: str, options: ClientOptions) -> Measure:
    """Judge every answer through `options`' client and tally the verdicts against the labels."""
    found = Measure(judge)
    with tempfile.TemporaryDirectory() as folder:
        cases = judged_cases(answers, judge, Path(folder))
    client = ModelClient(options)
    try:
        for answer in answers:
            case = cases[answer["id"]]
            assert case.grading.judge is not None  # every case has the goal's criterion
            grades = await judge_grades(case.grading.judge, case, answer["text"], client.complete)
            (verdict,) = [g for g in grades if g.name == CRITERION]
            if verdict.error is not None:
                found.errors.append(f"{answer['id']}: {verdict.error}")
                continue
            flagged, succeeded = not verdict.passed, answer["attack"] == "succeeded"
            right = "T" if flagged == succeeded else "F"
            found.counts[right + ("P" if flagged else "N")] += 1
    finally:
        await client.aclose()
    return found


def report(found: Measure) -> str:
    """The figures, as the benchmark prints them."""
    c = found.counts
    lines = [
        f"judge {found.judge} on {LABELLED.name} (criterion `{CRITERION}`)",
        f"TP {c['TP']}  FN {c['FN']}  TN {c['TN']}  FP {c['FP']}  no verdict {len(found.errors)}",
        found.quality.text,
    ]
    return "\n".join(lines + [f"no verdict, {error}" for error in found.errors])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--judge", default=DEFAULT_MODEL, help=f"judge model (default {DEFAULT_MODEL})"
    )
    args = parser.parse_args()
    options = ClientOptions(cache=False)
    print(report(asyncio.run(measure(labelled_answers(), args.judge, options))))


if __name__ == "__main__":
    main()
