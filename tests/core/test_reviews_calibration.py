"""Reviews as values (validated) and the calibration arithmetic, against hand-worked figures."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from promptum.values.calibration import Label, best_threshold, calibrate, kappa, labels
from promptum.values.case_result import CaseResult
from promptum.values.completion import Completion
from promptum.values.confusion import Confusion
from promptum.values.grade import Grade
from promptum.values.reviews import MAX_COMMENT, Review, ReviewedResult, result_key

WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def review(**fields: object) -> Review:
    values: dict[str, object] = {
        "run_id": "r1", "case_key": "s/c", "variant": None, "model": "m", "repeat": 1,
        "reviewer": "ada", "created_at": WHEN, "verdict": "good",
    }  # fmt: skip
    values.update(fields)
    return Review(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"score": 1.5}, "score must be from 0 to 1, not 1.5"),
        ({"score": -0.1}, "score must be from 0 to 1"),
        ({"score": math.nan}, "score must be from 0 to 1"),
        ({"score": "0.5"}, "score must be a number"),
        ({"comment": "x" * (MAX_COMMENT + 1)}, "comment is 4001 characters; at most 4000"),
        ({"verdict": None}, "marks the result good or bad (verdict) or overrides it"),
        ({"verdict": None, "override": "fail"}, "an override needs a reason"),
        ({"override": "fail", "reason": "  "}, "an override needs a reason"),
        ({"verdict": "fine"}, "verdict must be 'good' or 'bad'"),
        ({"override": "maybe", "reason": "r"}, "override must be 'pass' or 'fail'"),
        ({"repeat": 0}, "repeat must be a whole number from 1"),
        ({"reviewer": ""}, "a review needs a reviewer"),
        ({"case_key": ""}, "a review needs case_key"),
    ],
)
def test_a_bad_review_says_what_is_wrong(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        review(**fields)


def test_a_review_round_trips_and_names_its_result() -> None:
    given = review(variant="", score=0.25, comment="<b>meh</b>", override="fail", reason="rude")
    assert given.variant is None  # "" and None both mean no variant
    assert Review.from_dict(given.to_dict()) == given
    assert given.label == "good, override → fail, score 0.25"
    assert given.should_pass is False  # an override wins over the verdict
    assert "run_id" not in given.brief()
    assert given.brief()["reason"] == "rude"
    result = CaseResult(case_id="c", suite="s", model="m", status="pass", completion=Completion())
    assert given.result_key == result_key(result) == ("s/c", None, "m", 1)
    with pytest.raises(ValueError, match="unknown review field 'verdit'"):
        Review.from_dict({**given.to_dict(), "verdit": "good"})


def test_kappa_worked_by_hand() -> None:
    # a=40 both pass, b=5 judge pass/human fail, c=15 judge fail/human pass, d=40 both fail.
    # n=100; p_o=(40+40)/100=0.80; judge passes 45, humans pass 55:
    # p_e=(45*55 + 55*45)/100^2 = 4950/10000 = 0.495; kappa=(0.80-0.495)/(1-0.495)=0.305/0.505
    # = 0.6039604; SE = sqrt(0.8*0.2/(100*0.505^2)) = 0.4/(10*0.505) = 0.0792079;
    # 95%: 0.6039604 -+ 1.959964*0.0792079 (= 0.1552446) = [0.4487158, 0.7592050]
    observed, value, low, high = kappa(
        Confusion(true_positives=40, false_negatives=15, true_negatives=40, false_positives=5)
    )
    assert observed == 0.8
    assert value == pytest.approx(0.305 / 0.505)
    assert (low, high) == (pytest.approx(0.4487158, abs=1e-6), pytest.approx(0.7592050, abs=1e-6))


def test_kappa_without_chance_disagreement_is_undefined() -> None:
    # Everyone says pass: p_e = (10*10 + 0)/100 = 1, kappa divides by zero: None, not a number.
    assert kappa(
        Confusion(true_positives=10, false_negatives=0, true_negatives=0, false_positives=0)
    ) == (1.0, None, None, None)


def test_the_threshold_that_agrees_most_with_ties_nearest_the_judges() -> None:
    # scores/human: 0.2 F, 0.4 T, 0.6 F, 0.8 T. Agreement (pass when score >= t):
    # t=0.2: T T T T vs F T F T -> 2;  t=0.4: F T T T -> 3;  t=0.6: F F T T -> 2;
    # t=0.8: F F F T -> 3; the anchor t=0.7 (the judge's own): F F F T -> 3; t=1: F F F F
    # -> 2. 0.4, 0.7 and 0.8 tie at 3/4: the anchor itself is nearest (no change needed).
    pairs = [(0.2, False), (0.4, True), (0.6, False), (0.8, True)]
    assert best_threshold(pairs, anchor=0.7) == (0.7, 0.75)
    assert best_threshold(pairs, anchor=0.5) == (0.4, 0.75)
    assert best_threshold(pairs, anchor=0.6) == (0.4, 0.75)  # equally near: the lower one
    assert best_threshold([]) is None


def judged(name: str, score: float, threshold: float = 0.7, model: str = "j") -> Grade:
    details = {"model": model, "threshold": threshold}
    return Grade("judge", name, score >= threshold, score, "why", "judged", None, details)


def reviewed(grades: list[Grade], *reviews: Review) -> ReviewedResult:
    result = CaseResult(
        case_id="c", suite="s", model="m", status="pass", completion=Completion(), grades=grades
    )
    return ReviewedResult("r1", "s", result, reviews)


def test_labels_take_the_criterions_review_else_the_whole_results_latest() -> None:
    item = reviewed(
        [judged("polite", 0.9), judged("correct", 0.3), judged("brief", 0.5)],
        review(verdict="bad"),  # the whole result: bad ...
        review(verdict="good"),  # ... then good: the latest counts
        review(criterion="polite", verdict="bad"),
        review(criterion="correct", verdict=None, override="pass", reason="it is right"),
    )
    found = {label.criterion: label for label in labels([item])}
    assert found["polite"].human_passed is False  # its own review beats the whole result's
    assert found["correct"].human_passed is True  # override pass
    assert found["brief"].human_passed is True  # no review of it: the whole result's, latest
    assert labels([item], criterion="brief") == [found["brief"]]
    assert labels([item], judge_model="other") == []


def test_an_errored_judge_grade_is_no_label() -> None:
    broken = Grade("judge", "polite", False, None, None, "judged", "HTTP 503", {"model": "j"})
    assert labels([reviewed([broken], review())]) == []


def test_calibrate_groups_by_judge_model_and_criterion() -> None:
    rows = calibrate(
        [
            Label("j2", "c", True, 0.9, True, 0.7),
            Label("j1", "c", True, 0.9, True, 0.7),
            Label("j1", "c", False, 0.1, False, 0.7),
            Label("j1", "c", False, None, True, 0.7),
        ]
    )
    assert [(row.judge_model, row.n) for row in rows] == [("j1", 3), ("j2", 1)]
    j1 = rows[0]
    # a=1, b=0, c=1, d=1: p_o=2/3; p_e=(1*2 + 2*1)/9=4/9; kappa=(2/3-4/9)/(5/9)=0.4
    assert j1.kappa == pytest.approx(0.4)
    assert j1.confusion == Confusion(
        true_positives=1, false_negatives=1, true_negatives=1, false_positives=0
    )
    # fitted on the 2 scored labels only: 0.1 F, 0.9 T -> t=0.7 (the judge's own) and t=0.9
    # agree on both; the judge's own threshold is the smaller change
    assert (j1.threshold, j1.threshold_agreement, j1.scored) == (0.7, 1.0, 2)
    assert j1.to_dict()["confusion"]["judge_fail_human_pass"] == 1
