"""Weights and metric names a python check gives: a score that cannot overflow, a weight or a
metric name a suite could not set is not counted, and no report shows such a name."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from promptum.reporting import render_report
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.metrics import MetricTally, thresholded_status, weighted_score
from promptum.values.run_result import CaseResult, Message, RunResult


def labelled(passed: bool, **details: object) -> Grade:
    reason = None if passed else "no"
    return Grade("check", "contains", passed, None, reason, "Contains", details=details)


def test_weights_near_the_largest_float_do_not_overflow_the_score() -> None:
    """Before: OverflowError (`intermediate overflow in fsum`) out of the runner."""
    grades = [labelled(True, weight=1e308), labelled(False, weight=1e308)]
    assert weighted_score(grades) == pytest.approx(0.5)
    assert thresholded_status(grades, 0.5) == ("pass", pytest.approx(0.5))
    assert thresholded_status(grades, 0.6) == ("fail", pytest.approx(0.5))
    tiny = [labelled(True, weight=1e308), labelled(False, weight=5e-324)]
    assert weighted_score(tiny) == 1.0


@pytest.mark.parametrize("weight", [-5.0, float("inf"), float("nan")])
def test_a_python_checks_own_weight_that_a_suite_could_not_set_counts_as_1(weight: float) -> None:
    """A suite's weight is checked at load; a python check's grade details are not."""
    grades = [labelled(True, weight=weight), labelled(False)]
    assert weighted_score(grades) == pytest.approx(0.5)


UNSAFE = "</script><img src=x onerror=alert(1)>\"'\x01"


def test_a_metric_name_a_suite_could_not_set_is_not_counted_nor_shown() -> None:
    """Before: a python check's `details={"metric": ...}` with a control character made the
    JUnit report unparseable XML (`metric.<name>.pass_rate` properties), and markup went
    into every report's metrics table."""
    grades = [labelled(True, metric=UNSAFE), labelled(True, metric="accuracy")]
    result = CaseResult(
        case_id="a",
        model="m1",
        status="pass",
        messages=[Message(role="user", content="q")],
        completion=Completion(text="answer", model="m1"),
        grades=grades,
    )
    tally = MetricTally()
    tally.add(result)
    assert list(tally.figures(["m1"])) == ["accuracy"]
    run = RunResult(run_id="r1", suite="s", models=["m1"], results=[result])
    junit = render_report(run, "junit")
    names = [p.get("name") for p in ET.fromstring(junit).iter("property")]
    assert "metric.accuracy.pass_rate" in names
    assert not any("script" in (name or "") for name in names)
    for kind in ("junit", "md", "csv", "html"):  # JSON keeps the grade's details as data
        assert "onerror" not in render_report(run, kind), kind
