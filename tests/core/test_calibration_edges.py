"""Calibration at its edges: one class only, one label, perfect agreement, no scores."""

from __future__ import annotations

import pytest

from promptum.values.calibration import Label, best_threshold, calibrate, kappa
from promptum.values.confusion import Confusion


def test_people_failing_every_answer_keep_the_judges_threshold_when_it_agrees() -> None:
    # Judge threshold 0.7, scores 0.3 and 0.5 (both fail), people say fail: the threshold
    # now agrees on both. Among the scores alone t=0.3 (both pass) would agree on none.
    assert best_threshold([(0.3, False), (0.5, False)], anchor=0.7) == (0.7, 1.0)


def test_people_failing_every_answer_the_judge_passes_get_a_threshold_failing_all() -> None:
    # Scores 0.8 and 0.9 pass at 0.7, people fail both: t=0.8 agrees on 1, t=0.9 on 1,
    # t=0.7 on 0, t=1 (only a perfect score passes) on both.
    assert best_threshold([(0.8, False), (0.9, False)], anchor=0.7) == (1.0, 1.0)


def test_one_label_and_perfect_agreement_give_no_zero_width_interval() -> None:
    # n=1, judge pass, people fail: p_o=0, p_e=(1*0 + 0*1)/1=0, kappa=0; SE=sqrt(0/1)=0.
    assert kappa(
        Confusion(true_positives=0, false_negatives=0, true_negatives=0, false_positives=1)
    ) == (0.0, 0.0, None, None)
    # n=3: a=2, d=1: p_o=1, p_e=(2*2 + 1*1)/9=5/9, kappa=1; SE=0 whatever n: no interval.
    assert kappa(
        Confusion(true_positives=2, false_negatives=0, true_negatives=1, false_positives=0)
    ) == (1.0, 1.0, None, None)
    with pytest.raises(ValueError, match="no labels"):
        kappa(Confusion(0, 0, 0, 0))


def test_one_verdict_only_and_no_scores_read_as_such() -> None:
    (row,) = calibrate([Label("j", "polite", False, None, False, 0.7)] * 3)
    assert (row.n, row.agreement, row.kappa, row.kappa_low) == (3, 1.0, None, None)
    assert (row.threshold, row.threshold_agreement, row.scored) == (None, None, 0)
    assert row.to_dict()["kappa_ci95"] == [None, None]
