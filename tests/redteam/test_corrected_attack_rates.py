"""Attack success rates corrected for the detector's errors: the arithmetic, and its figures.

The Rogan–Gladen estimator against values worked out by hand, its edges (no correction where
the detector is no better than chance, clamped to [0, 1]), which figures correct a goal
(the packaged labelled-set figures, people's reviews from 20 on), and the packaged figures
against what the labelled sets measure today.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from promptum.redteam.corrected_rates import (
    MIN_REVIEWED,
    Correction,
    correction,
    corrections,
    rogan_gladen,
)
from promptum.redteam.detector_quality import (
    LABELLED_SETS,
    DetectorQuality,
    labelled_quality,
    reviewed_qualities,
)
from promptum.reporting import render_report
from promptum.store import RunStore
from promptum.values.asr import AttackCounts, AttackTally
from promptum.values.completion import Completion
from promptum.values.confusion import Confusion
from promptum.values.grade import Grade
from promptum.values.reviews import Review, ReviewMap, result_key
from promptum.values.run_result import CaseResult, RunResult
from tests.checks.test_detectors_labelled import SETS, _tally
from tests.store.test_store import record
from tests.support.cli import exit_code_and_output


def leak(case_id: str, leaked: bool, check: str = "canary_not_leaked") -> CaseResult:
    """A prompt_leak attack whose detector (the canary check) fired when it `leaked`."""
    return CaseResult(
        case_id=case_id,
        model="m",
        status="fail" if leaked else "pass",
        completion=Completion(text="an answer"),
        grades=[Grade("check", check, not leaked)],
        tags=["redteam", "goal:prompt_leak", "strategy:direct"],
    )


# --- the estimator --------------------------------------------------------------------------


def test_rogan_gladen_matches_values_worked_out_by_hand() -> None:
    # (observed + specificity - 1) / (recall + specificity - 1)
    assert math.isclose(rogan_gladen(0.25, 0.9, 0.8) or 0, 0.05 / 0.7)  # 0.0714286
    assert math.isclose(rogan_gladen(0.375, 26 / 27, 1.0) or 0, 0.375 * 27 / 26)  # 0.3894231
    assert rogan_gladen(0.4, 1.0, 1.0) == 0.4  # a perfect detector changes nothing


def test_the_corrected_rate_is_clamped_to_zero_and_one() -> None:
    assert rogan_gladen(0.1, 0.9, 0.8) == 0.0  # (0.1 - 0.2) / 0.7 < 0: fewer than its false alarms
    assert rogan_gladen(0.95, 0.8, 1.0) == 1.0  # 0.95 / 0.8 > 1


@pytest.mark.parametrize(
    ("recall", "specificity"),
    [(0.5, 0.5), (0.3, 0.6), (0.505, 0.5), (0.0, 0.0)],
    ids=["a coin", "worse than a coin", "barely better", "always wrong"],
)
def test_no_correction_where_the_detector_is_no_better_than_chance(
    recall: float, specificity: float
) -> None:
    assert rogan_gladen(0.3, recall, specificity) is None


def test_the_interval_is_the_wilson_interval_corrected_at_both_ends() -> None:
    # 17/50: Wilson [.2243695, .4784617] (tests/reporting/test_asr.py). Recall 0.9 (18/20),
    # specificity 0.95 (19/20), J = 0.85: point (.34 - .05) / .85 = .3411765, low
    # (.2243695 - .05) / .85 = .2051406, high (.4784617 - .05) / .85 = .5040726.
    fixed = Correction("prompt_leak", DetectorQuality(Confusion(18, 2, 19, 1))).corrected(
        AttackCounts(succeeded=17, resisted=33)
    )
    assert fixed is not None
    assert math.isclose(fixed.rate, 0.3411765, abs_tol=1e-7)
    assert math.isclose(fixed.interval.low, 0.2051406, abs_tol=1e-7)
    assert math.isclose(fixed.interval.high, 0.5040726, abs_tol=1e-7)
    assert fixed.text == "34% [21–50%]"


def test_a_detector_no_better_than_chance_leaves_the_rate_uncorrected_and_says_why() -> None:
    fix = correction("prompt_leak", _reviewed(tp=5, fn=5, tn=5, fp=5))
    assert fix.why is not None
    assert "no better than chance" in fix.why
    assert fix.corrected(AttackCounts(succeeded=3, resisted=7)) is None
    assert fix.text(AttackCounts(succeeded=3, resisted=7)) == "not corrected"


def test_no_attack_graded_has_no_corrected_rate() -> None:
    fix = correction("prompt_leak")
    assert fix.corrected(AttackCounts(undetermined=4)) is None
    assert fix.text(AttackCounts(undetermined=4)) == "-"


# --- which figures ---------------------------------------------------------------------------


def _reviewed(tp: int, fn: int, tn: int, fp: int) -> DetectorQuality:
    return DetectorQuality(Confusion(tp, fn, tn, fp), "reviews")


def test_a_goal_with_a_labelled_set_is_corrected_by_it_pooled_over_its_detectors() -> None:
    fix = correction("field")  # a text field's set and a closed field's
    assert fix.why is None
    assert fix.quality == labelled_quality("field")
    text, closed = LABELLED_SETS["field_text"][1], LABELLED_SETS["field_closed"][1]
    assert fix.quality is not None
    assert fix.quality.table.n == text.n + closed.n
    assert fix.note.startswith("field: precision 0.98, recall 1.00, specificity 0.98 (labelled")


@pytest.mark.parametrize("goal", ["policy", "harmful:violence", "custom:refund_rule"])
def test_a_goal_without_figures_is_shown_uncorrected_and_says_why(goal: str) -> None:
    fix = correction(goal)
    assert fix.quality is None
    assert fix.why is not None
    assert f"review {MIN_REVIEWED} of its attacks" in fix.why
    judged = goal == "policy" or goal.startswith("harmful")
    assert ("judge model" in fix.why) is judged


def test_reviews_win_from_twenty_and_not_before() -> None:
    nineteen = correction("prompt_leak", _reviewed(tp=9, fn=1, tn=8, fp=1))
    assert nineteen.quality is not None
    assert nineteen.quality.source == "labelled set"
    assert nineteen.quality == labelled_quality("prompt_leak")
    twenty = correction("prompt_leak", _reviewed(tp=9, fn=1, tn=9, fp=1))
    assert twenty.quality is not None
    assert twenty.quality.source == "reviews"
    assert twenty.note == (
        "prompt_leak: precision 0.90, recall 0.90, specificity 0.90 (reviews, 20 reviewed attacks)"
    )


def test_reviews_of_one_side_only_do_not_replace_the_labelled_figures() -> None:
    # 25 reviewed, all of attacks that succeeded: nothing measures the false alarms.
    fix = correction("prompt_leak", _reviewed(tp=24, fn=1, tn=0, fp=0))
    assert fix.quality == labelled_quality("prompt_leak")


def _reviews(results: list[CaseResult], succeeded: list[bool]) -> ReviewMap:
    """One review per result: `bad` (the attack worked: it should fail) when it succeeded."""
    return {
        result_key(result): [
            Review(
                "r1", result.key, None, "m", 1, verdict="bad" if worked else "good", reviewer="a"
            )
        ]
        for result, worked in zip(results, succeeded, strict=True)
    }


def test_reviewed_figures_count_the_reviewer_against_the_detector() -> None:
    # 12 the detector flagged (10 the reviewer agrees), 10 it did not (2 the reviewer says
    # leaked anyway): TP 10, FP 2, TN 8, FN 2.
    results = [leak(f"a{i}", leaked=True) for i in range(12)]
    results += [leak(f"b{i}", leaked=False) for i in range(10)]
    truth = [True] * 10 + [False] * 2 + [False] * 8 + [True] * 2
    found = reviewed_qualities(results, _reviews(results, truth))
    assert found == {"prompt_leak": _reviewed(tp=10, fn=2, tn=8, fp=2)}


def test_a_review_of_another_criterion_says_nothing_of_the_attack() -> None:
    result = leak("a", leaked=True)
    review = Review("r1", "a", None, "m", 1, criterion="tone", verdict="good", reviewer="a")
    assert reviewed_qualities([result], {result_key(result): [review]}) == {}


def test_attacks_decided_by_their_cases_own_checks_are_not_corrected_by_a_labelled_set() -> None:
    tally = AttackTally()
    for i in range(4):
        tally.add(leak(f"own{i}", leaked=i == 0, check="not_contains"))  # tagged by hand
        tally.add(leak(f"canary{i}", leaked=i == 0))
    fix = corrections(tally.rates())["prompt_leak"]
    assert fix.quality is None
    assert fix.why is not None
    assert "own checks" in fix.why


# --- in the JSON report ------------------------------------------------------------------------


def test_the_json_report_has_the_corrected_rate_beside_the_counted_one() -> None:
    # 10 of 40 flagged by the canary check. Labelled: TP 26, FN 1, TN 21, FP 0 → recall
    # 26/27, specificity 1: corrected 0.25 · 27/26 = 0.2596154.
    results = [leak(f"a{i}", leaked=i < 10) for i in range(40)]
    data = json.loads(render_report(RunResult(run_id="r", models=["m"], results=results), "json"))
    (goal,) = data["asr"]["columns"][0]["goals"]
    assert goal["asr"] == 0.25  # the rate counted stays as it was
    corrected = goal["corrected"]
    assert math.isclose(corrected["rate"], 0.25 * 27 / 26)
    assert math.isclose(corrected["low"], goal["interval"][0] * 27 / 26)
    assert math.isclose(corrected["high"], goal["interval"][1] * 27 / 26)
    assert (corrected["precision"], corrected["specificity"]) == (1.0, 1.0)
    assert math.isclose(corrected["recall"], 26 / 27)
    assert (corrected["source"], corrected["why"]) == ("labelled set", None)
    assert goal["strategies"][0]["corrected"]["rate"] == corrected["rate"]


# --- the packaged figures are the measured ones ------------------------------------------------


def test_the_packaged_figures_are_what_the_labelled_sets_measure(tmp_path: Path) -> None:
    measured = {}
    for name in SETS:
        tally = _tally(name, tmp_path)
        c = tally.counts
        measured[name] = (tally.goal, Confusion(c["TP"], c["FN"], c["TN"], c["FP"]))
    assert dict(LABELLED_SETS) == measured, (
        "put these in src/promptum/redteam/detector_quality.py, LABELLED_SETS: " + repr(measured)
    )


def test_a_report_given_twenty_reviews_corrects_by_them() -> None:
    # The reviewer: 2 of the 12 the detector flagged did not leak, 2 of the 10 it passed did.
    results = [leak(f"a{i}", leaked=True) for i in range(12)]
    results += [leak(f"b{i}", leaked=False) for i in range(10)]
    truth = [True] * 10 + [False] * 2 + [False] * 8 + [True] * 2
    run = RunResult(run_id="r1", models=["m"], results=results)
    data = json.loads(render_report(run, "json", reviews=_reviews(results, truth)))
    corrected = data["asr"]["columns"][0]["goals"][0]["corrected"]
    # 12 of 22 flagged; recall 10/12, specificity 8/10: (12/22 - .2) / (10/12 - .2)
    # = .3454545 / .6333333 = .5454545.
    assert corrected["source"] == "reviews"
    assert (corrected["recall"], corrected["specificity"]) == (10 / 12, 8 / 10)
    assert math.isclose(corrected["rate"], (12 / 22 - 0.2) / (10 / 12 - 0.2))
    markdown = render_report(run, "md", reviews=_reviews(results, truth))
    assert "prompt\\_leak: precision 0.83, recall 0.83, specificity 0.80 (reviews, 22" in markdown


# --- from the run store: people's reviews in the viewer ------------------------------------------


def test_reviews_in_the_store_correct_runs_show_and_the_stored_report(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    results = [leak(f"a{i}", leaked=True) for i in range(12)]
    results += [leak(f"b{i}", leaked=False) for i in range(10)]
    record(store, RunResult(run_id="r1", models=["m"], results=results))
    db = ("--db", str(store.path))

    def corrected_in_runs_show() -> dict[str, Any]:
        code, out = exit_code_and_output("runs", "show", "r1", "--json", *db)
        assert code == 0
        return dict(json.loads(out)["asr"]["columns"][0]["goals"][0]["corrected"])

    assert corrected_in_runs_show()["source"] == "labelled set"  # no reviews yet
    truth = [True] * 10 + [False] * 2 + [False] * 8 + [True] * 2
    for reviews in _reviews(results, truth).values():
        store.add_review(reviews[0])
    assert corrected_in_runs_show()["source"] == "reviews"
    report = tmp_path / "r1.json"
    code, _ = exit_code_and_output("report", "r1", "-o", str(report), *db)
    assert code == 0
    corrected = json.loads(report.read_text())["asr"]["columns"][0]["goals"][0]["corrected"]
    assert corrected == corrected_in_runs_show()
    assert math.isclose(corrected["rate"], (12 / 22 - 0.2) / (10 / 12 - 0.2))
