"""Each red-team goal's detector on answers labelled by hand: true and false positives.

tests/data/redteam_labelled/<goal>.yaml holds fixed answers (no model) to attacks on one case,
each labelled `succeeded` (the attack worked: the detector must fire) or `resisted` (it must
stay silent, near-misses included). An answer the detector is known to get wrong carries
`expected:` with the reason; it is counted apart, and the test fails if the detector starts
getting it right (so the mark is removed) or gets any unmarked answer wrong. The answers are
graded the way a run grades them: the case's checks and field assertions, by `grade`.

Run with ``pytest -s`` to see the table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptum import Completion
from promptum.checks import CANARY, CheckDefinition
from promptum.completion import ToolCall
from promptum.results import Message
from promptum.runner import TestCase, grade
from promptum.suites import load_suite

DATA = Path(__file__).parents[1] / "data" / "redteam_labelled"
GOALS = ("prompt_leak", "exfiltration", "secret_leak", "field", "tool")


def _data(goal: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DATA / f"{goal}.yaml").read_text(encoding="utf-8"))
    return loaded


def _case(data: dict[str, Any], folder: Path) -> TestCase:
    """The case the answers are graded as; a canary check bound as the loader binds it."""
    if "canary" in data:
        token = data["canary"]
        check = CheckDefinition.model_validate(
            {"type": "canary_not_leaked", "value": token}, context={CANARY: token}
        )
        system = data["system"].replace("{{ canary }}", token)
        return TestCase(
            id=data["goal"], messages=(Message(role="system", content=system),), checks=(check,)
        )
    path = folder / f"{data['goal']}.yaml"
    path.write_text(yaml.safe_dump(data["suite"], sort_keys=False), encoding="utf-8")
    (case,) = load_suite(path).cases
    return case


def _completion(answer: dict[str, Any]) -> Completion:
    output = answer.get("output")
    text = answer.get("text", json.dumps(output) if output is not None else "")
    calls = tuple(ToolCall(**call) for call in answer.get("tool_calls", ()))
    return Completion(text=text, output=output, tool_calls=calls)


@dataclass
class Tally:
    """One detector's verdicts on its labelled set."""

    goal: str
    detector: str
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("TP", "FN", "TN", "FP"), 0)
    )
    wrong: list[str] = field(default_factory=list)
    """Answers the detector got wrong without an `expected:` mark: each fails the test."""
    known: list[str] = field(default_factory=list)
    """Marked answers it still gets wrong, with the reason."""
    stale: list[str] = field(default_factory=list)
    """Marked answers it now gets right: the mark must go."""


def _tally(goal: str, folder: Path) -> Tally:
    data = _data(goal)
    case = _case(data, folder)
    tally = Tally(goal, data["detector"])
    for answer in data["answers"]:
        grades = grade(case, _completion(answer))
        assert grades, answer["id"]
        assert all(g.error is None for g in grades), (answer["id"], grades)
        fired = any(not g.passed for g in grades)
        succeeded = answer["attack"] == "succeeded"
        assert answer["attack"] in ("succeeded", "resisted"), answer["id"]
        verdict = {
            (True, True): "TP",
            (True, False): "FN",
            (False, False): "TN",
            (False, True): "FP",
        }
        key = verdict[(succeeded, fired)]
        tally.counts[key] += 1
        right = key in ("TP", "TN")
        reasons = "; ".join(g.reason or g.name for g in grades if not g.passed)
        if "expected" in answer:
            (tally.stale if right else tally.known).append(
                f"{answer['id']} ({key}): {answer['expected']}"
            )
        elif not right:
            tally.wrong.append(f"{answer['id']} ({key}) {reasons}")
    return tally


@pytest.fixture(scope="module")
def tallies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Tally]:
    folder = tmp_path_factory.mktemp("labelled")
    found = {goal: _tally(goal, folder) for goal in GOALS}
    lines = [
        "",
        f"{'goal':<13}{'detector':<43}{'answers':>8}{'TP':>5}{'FN':>5}{'TN':>5}{'FP':>5}",
    ]
    for tally in found.values():
        c = tally.counts
        lines.append(
            f"{tally.goal:<13}{tally.detector:<43}{sum(c.values()):>8}"
            f"{c['TP']:>5}{c['FN']:>5}{c['TN']:>5}{c['FP']:>5}"
        )
    for tally in found.values():
        lines += [f"expected miss, {tally.goal}: {known}" for known in tally.known]
    print("\n".join(lines))
    return found


@pytest.mark.parametrize("goal", GOALS)
def test_each_goal_has_at_least_twenty_answers_half_of_them_successful_attacks(goal: str) -> None:
    answers = _data(goal)["answers"]
    succeeded = sum(a["attack"] == "succeeded" for a in answers)
    assert len(answers) >= 20
    assert succeeded >= 10
    assert len(answers) - succeeded >= 10
    assert len({a["id"] for a in answers}) == len(answers)


@pytest.mark.parametrize("goal", GOALS)
def test_the_detector_fires_on_every_successful_attack_and_on_nothing_else(
    goal: str, tallies: dict[str, Tally]
) -> None:
    tally = tallies[goal]
    assert tally.wrong == []
    assert tally.stale == [], "the detector now gets these right: remove their `expected:` mark"
