"""Each red-team detector on answers labelled by hand: its precision and recall.

tests/data/redteam_labelled/<set>.yaml holds fixed answers (no model) to attacks on one case,
each labelled `succeeded` (the attack worked: the detector must fire) or `resisted` (it must
stay silent, near-misses included). A set is one detector of one goal: the `field` goal has
one for a text field (`field_not_hijacked`) and one for a closed field (`attack_target`), the
`tool` goal one for a tool's arguments (`tool_args`) and one for a call at all
(`tool_not_called`), the `excessive_agency` goal one for an acting tool called unasked
(`tool_not_called`, on a pasted request to act). The `policy` and `harmful` goals are judged
by a model, not by a detector, and a `custom` goal's detector is the user's own check: they
have no set here, but for `harmful.yaml`, a judge's set (benchmarks/judge_harmful.py measures
a judge model on it, tests/redteam/test_harmful_labelled_set.py checks it).

An answer the detector is known to get wrong carries `expected:` with the reason; it counts in
the figures, and the test fails if the detector starts getting it right (so the mark is
removed) or gets any unmarked answer wrong. The answers are graded the way a run grades them
(`grade`), and only the detector's grades decide, as they decide an attack's verdict: a
response model the answer fails is not the attack succeeding.

The table of precision and recall in docs/redteam.md ("Detector precision and recall") is
these figures: `test_the_docs_publish_these_figures` fails when they part. Run with
``pytest -s`` to see the table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptum import Completion
from promptum.cases import Grading, TestCase
from promptum.checks import CANARY, CheckDefinition
from promptum.runner import grade
from promptum.suites import load_suite
from promptum.values.completion import ToolCall
from promptum.values.grade import Grade
from promptum.values.run_result import Message

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "redteam_labelled"
SETS = (
    "field_text",
    "field_closed",
    "tool_args",
    "tool_call",
    "prompt_leak",
    "exfiltration",
    "secret_leak",
    "pii",
    "excessive_agency",
)
DETECTOR_CHECKS = frozenset(
    {
        "field_not_hijacked",
        "tool_args",
        "tool_not_called",
        "canary_not_leaked",
        "no_exfiltration",
        "secret_not_leaked",
        "pii_not_leaked",
    }
)
JUDGED_SET = "harmful"
"""The `harmful` goal's answers: a judge model's set, not a detector's (no figures here)."""
PRECISION_FLOOR = 0.95
RECALL_FLOOR = 0.9
DOCS = ROOT / "docs" / "redteam.md"
TABLE_START = "<!-- detector figures: tests/checks/test_detectors_labelled.py -->\n"


def _data(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DATA / f"{name}.yaml").read_text(encoding="utf-8"))
    return loaded


def _case(name: str, data: dict[str, Any], folder: Path) -> TestCase:
    """The case the answers are graded as; a canary check bound as the loader binds it."""
    if "canary" in data:
        token = data["canary"]
        check = CheckDefinition.model_validate(
            {"type": "canary_not_leaked", "value": token}, context={CANARY: token}
        )
        system = data["system"].replace("{{ canary }}", token)
        return TestCase(
            id=data["goal"],
            messages=(Message(role="system", content=system),),
            grading=Grading(checks=(check,)),
        )
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data["suite"], sort_keys=False), encoding="utf-8")
    (case,) = load_suite(path).cases
    return case


def _completion(answer: dict[str, Any]) -> Completion:
    output = answer.get("output")
    text = answer.get("text", json.dumps(output) if output is not None else "")
    calls = tuple(ToolCall(**call) for call in answer.get("tool_calls", ()))
    return Completion(text=text, output=output, tool_calls=calls)


def _detects(found: Grade) -> bool:
    """Whether a grade is a detector's: a detector check, or an `attack_target` assertion."""
    if found.kind == "assertion":
        return found.details.get("op") == "ne"
    return found.kind == "check" and found.name in DETECTOR_CHECKS


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

    @property
    def positives(self) -> int:
        """Answers whose attack succeeded."""
        return self.counts["TP"] + self.counts["FN"]

    @property
    def negatives(self) -> int:
        """Answers whose attack was resisted."""
        return self.counts["TN"] + self.counts["FP"]

    @property
    def precision(self) -> float:
        """Of the answers the detector fired on, the share whose attack succeeded."""
        fired = self.counts["TP"] + self.counts["FP"]
        return self.counts["TP"] / fired if fired else 1.0

    @property
    def recall(self) -> float:
        """Of the answers whose attack succeeded, the share the detector fired on."""
        return self.counts["TP"] / self.positives if self.positives else 1.0


def _tally(name: str, folder: Path) -> Tally:
    data = _data(name)
    case = _case(name, data, folder)
    tally = Tally(data["goal"], data["detector"])
    for answer in data["answers"]:
        grades = grade(case, _completion(answer))
        detector = [g for g in grades if _detects(g)]
        assert detector, answer["id"]
        assert all(g.error is None for g in detector), (answer["id"], detector)
        fired = any(not g.passed for g in detector)
        assert answer["attack"] in ("succeeded", "resisted"), answer["id"]
        succeeded = answer["attack"] == "succeeded"
        verdict = {
            (True, True): "TP",
            (True, False): "FN",
            (False, False): "TN",
            (False, True): "FP",
        }
        key = verdict[(succeeded, fired)]
        tally.counts[key] += 1
        right = key in ("TP", "TN")
        reasons = "; ".join(g.reason or g.name for g in detector if not g.passed)
        if "expected" in answer:
            (tally.stale if right else tally.known).append(
                f"{answer['id']} ({key}): {answer['expected']}"
            )
        elif not right:
            tally.wrong.append(f"{answer['id']} ({key}) {reasons}")
    return tally


def figures_table(tallies: list[Tally]) -> str:
    """The Markdown table docs/redteam.md publishes: one row per detector."""
    lines = [
        "| goal | detector | attacks that succeeded | attacks resisted | precision | recall |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for tally in tallies:
        lines.append(
            f"| `{tally.goal}` | {tally.detector} | {tally.positives} | {tally.negatives} "
            f"| {tally.precision:.2f} | {tally.recall:.2f} |"
        )
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def tallies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Tally]:
    folder = tmp_path_factory.mktemp("labelled")
    found = {name: _tally(name, folder) for name in SETS}
    lines = [
        "",
        f"{'goal':<17}{'detector':<40}{'answers':>8}{'TP':>5}{'FN':>5}{'TN':>5}{'FP':>5}"
        f"{'prec.':>7}{'recall':>7}",
    ]
    for tally in found.values():
        c = tally.counts
        lines.append(
            f"{tally.goal:<17}{tally.detector:<40}{sum(c.values()):>8}"
            f"{c['TP']:>5}{c['FN']:>5}{c['TN']:>5}{c['FP']:>5}"
            f"{tally.precision:>7.2f}{tally.recall:>7.2f}"
        )
    for tally in found.values():
        lines += [f"expected miss, {tally.goal}: {known}" for known in tally.known]
    print("\n".join(lines))
    return found


def test_every_set_is_a_file_here_and_every_file_a_set() -> None:
    assert sorted(p.stem for p in DATA.glob("*.yaml")) == sorted((*SETS, JUDGED_SET))


@pytest.mark.parametrize("name", SETS)
def test_each_detector_has_twenty_answers_each_way(name: str) -> None:
    answers = _data(name)["answers"]
    succeeded = sum(a["attack"] == "succeeded" for a in answers)
    assert succeeded >= 20
    assert len(answers) - succeeded >= 20
    assert len({a["id"] for a in answers}) == len(answers)


def test_every_goal_with_a_detector_has_a_set() -> None:
    goals = {_data(name)["goal"] for name in SETS}
    assert goals == {
        "field",
        "tool",
        "prompt_leak",
        "exfiltration",
        "secret_leak",
        "pii",
        "excessive_agency",
    }


@pytest.mark.parametrize("name", SETS)
def test_the_detector_fires_on_every_successful_attack_and_on_nothing_else(
    name: str, tallies: dict[str, Tally]
) -> None:
    tally = tallies[name]
    assert tally.wrong == []
    assert tally.stale == [], "the detector now gets these right: remove their `expected:` mark"


@pytest.mark.parametrize("name", SETS)
def test_precision_and_recall_reach_their_floor(name: str, tallies: dict[str, Tally]) -> None:
    tally = tallies[name]
    assert tally.precision >= PRECISION_FLOOR, tally.counts
    assert tally.recall >= RECALL_FLOOR, tally.counts


def test_the_docs_publish_these_figures(tallies: dict[str, Tally]) -> None:
    docs = DOCS.read_text(encoding="utf-8")
    assert TABLE_START in docs
    published = docs.split(TABLE_START, 1)[1].split("\n\n", 1)[0] + "\n"
    measured = figures_table([tallies[name] for name in SETS])
    assert published == measured, f"put this table in docs/redteam.md:\n{measured}"
