"""Named metrics and weights: the weighted score, the per-metric fold, and every report.

End to end through `promptum run` is in tests/runner/test_weighted_cases.py; here the parts
are driven directly: a case's status under a threshold, the figures counted in any order of
arrival, each report format with and without metrics, and the located load errors.
"""

from __future__ import annotations

import csv
import io
import json
import random
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from promptum.errors import PromptumError
from promptum.reporting import load_run, render_report
from promptum.reporting._csv import COLUMNS
from promptum.reporting._outcome import outcome
from promptum.suites import load_suite
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.metrics import MetricTally, thresholded_status, weighted_score
from promptum.values.run_result import CaseResult, Message, RunResult
from promptum.values.tally import RunTally


def check(passed: bool, metric: str | None = None, weight: float | None = None) -> Grade:
    details: dict[str, object] = {}
    if metric is not None:
        details["metric"] = metric
    if weight is not None:
        details["weight"] = weight
    reason = None if passed else "expected to contain 'x'"
    return Grade("check", "contains", passed, None, reason, "Contains 'x'", details=details)


def judged(score: float, metric: str | None = None, threshold: float = 0.7) -> Grade:
    details: dict[str, object] = {"model": "local/smollm2", "threshold": threshold}
    if metric is not None:
        details["metric"] = metric
    return Grade("judge", "polite", score >= threshold, score, "fine", "judged", details=details)


def errored(metric: str | None = None) -> Grade:
    details = {"metric": metric} if metric else {}
    return Grade("judge", "polite", False, None, None, "judged", "judge unreachable", details)


# --- the weighted score and the status it gives -------------------------------------------


def test_a_failed_grade_does_not_fail_a_case_whose_weighted_score_reaches_its_threshold() -> None:
    grades = [check(True, weight=3), check(False), judged(0.8)]
    assert weighted_score(grades) == pytest.approx((3 + 0 + 0.8) / 5)
    assert thresholded_status(grades, 0.75) == ("pass", pytest.approx(0.76))
    assert thresholded_status(grades, 0.8)[0] == "fail"


def test_a_scored_grade_counts_its_score_passed_or_not() -> None:
    # 0.5 is below the judge's own threshold (a failed grade), yet it is worth 0.5, not 0.
    grades = [check(True), judged(0.5)]
    assert weighted_score(grades) == pytest.approx(0.75)
    assert thresholded_status(grades, 0.75)[0] == "pass"


def test_two_of_three_reaches_its_own_rounded_threshold() -> None:
    grades = [check(True), check(True), check(False)]
    assert thresholded_status(grades, 2 / 3)[0] == "pass"


def test_an_error_stays_an_error_unless_the_case_fails_whatever_it_would_have_said() -> None:
    # With the erring grade at full marks it would pass: an error, never a pass.
    assert thresholded_status([check(True), check(True), errored()], 0.5)[0] == "error"
    assert thresholded_status([check(True), check(True), errored()], 0.6)[0] == "error"
    # Even at full marks it would stay below: known to fail, as without a threshold.
    assert thresholded_status([check(False), check(False), errored()], 0.5)[0] == "fail"


def test_weight_zero_counts_for_nothing_and_all_zero_falls_back_to_every_grade() -> None:
    assert weighted_score([check(True), check(False, weight=0)]) == 1.0
    assert thresholded_status([check(True), check(False, weight=0)], 1.0)[0] == "pass"
    assert thresholded_status([check(False, weight=0)], 0.0) == ("fail", None)
    assert thresholded_status([check(True, weight=0)], 0.0) == ("pass", None)


# --- the per-metric fold -----------------------------------------------------------------


def result(
    case_id: str,
    grades: list[Grade],
    *,
    model: str = "m1",
    variant: str | None = None,
    threshold: float | None = None,
) -> CaseResult:
    status, score = "pass", None
    if threshold is not None:
        status, score = thresholded_status(grades, threshold)
    elif any(not grade.passed for grade in grades):
        status = "error" if all(g.error for g in grades if not g.passed) else "fail"
    return CaseResult(
        case_id=case_id,
        model=model,
        variant=variant,
        status=status,
        messages=[Message(role="user", content=f"question {case_id}")],
        completion=Completion(text=f"answer {case_id}", model=model, latency_ms=12.5),
        grades=grades,
        score=score,
        threshold=threshold,
    )


def mixed_results() -> list[CaseResult]:
    results = []
    for n in range(30):
        for model in ("m1", "m2"):
            grades = [
                check(n % 3 != 0, "accuracy", weight=2),
                judged(0.1 * (n % 10) + 0.05, "tone"),
                check(n % 2 == 0),  # no metric: not in the figures
            ]
            if n % 7 == 0:
                grades.append(errored("tone"))
            results.append(result(f"c{n}", grades, model=model, threshold=0.5))
    return results


def test_figures_per_metric_and_column() -> None:
    results = mixed_results()
    figures = RunTally.of(results, ["m1", "m2"]).metric_figures()
    assert list(figures) == ["accuracy", "tone"]  # sorted by name
    accuracy = figures["accuracy"]["m1"]
    assert (accuracy.total, accuracy.passed, accuracy.failed, accuracy.errors) == (30, 20, 10, 0)
    assert accuracy.pass_rate == pytest.approx(20 / 30)
    assert accuracy.mean_score == pytest.approx(20 / 30)
    tone = figures["tone"]["m2"]
    errors = len([n for n in range(30) if n % 7 == 0])
    assert (tone.total, tone.errors) == (30 + errors, errors)
    scores = [0.1 * (n % 10) + 0.05 for n in range(30)]
    assert tone.mean_score == pytest.approx(sum(scores) / 30)  # errors are not graded
    assert tone.passed == sum(score >= 0.7 for score in scores)
    assert tone.pass_rate == tone.passed / tone.total  # an error is not a pass


def test_the_figures_do_not_depend_on_the_order_results_arrive_in() -> None:
    results = mixed_results()
    kept = RunTally.of(results, ["m1", "m2"]).metric_figures()
    for seed in range(5):
        order = list(enumerate(results))
        random.Random(seed).shuffle(order)
        streamed = RunTally(["m1", "m2"])
        for position, item in order:
            streamed.add(item, position)
        assert streamed.metric_figures() == kept  # exactly, floats included


def test_a_run_without_metrics_has_no_figures() -> None:
    tally = MetricTally()
    tally.add(result("a", [check(True), judged(0.9)]))
    assert not tally
    assert tally.figures(["m1"]) == {}


# --- the reports ---------------------------------------------------------------------------


def metric_run() -> RunResult:
    results = [
        result("passes", [check(True, "accuracy", 3), check(False, "accuracy")], threshold=0.7),
        result(
            "fails",
            [check(True, "accuracy"), check(False, "accuracy"), check(False, "brevity")],
            threshold=0.9,
        ),
        result("judged", [judged(0.8, "tone")], model="m2"),
    ]
    return RunResult(run_id="r1", suite="metrics", models=["m1", "m2"], results=results)


def plain_run() -> RunResult:
    results = [result("a", [check(True)]), result("b", [check(False), judged(0.4)])]
    return RunResult(run_id="r0", suite="plain", models=["m1"], results=results)


def test_json_carries_the_figures_and_reads_back_with_the_scores(tmp_path: Path) -> None:
    text = render_report(metric_run(), "json")
    data = json.loads(text)
    assert data["metrics"]["accuracy"]["m1"] == {
        "model": "m1",
        "variant": None,
        "total": 4,
        "passed": 2,
        "failed": 2,
        "errors": 0,
        "pass_rate": 0.5,
        "mean_score": 0.5,
    }
    assert data["metrics"]["tone"]["m2"]["mean_score"] == 0.8
    passes = data["results"][0]
    assert (passes["status"], passes["score"], passes["threshold"]) == ("pass", 0.75, 0.7)
    assert passes["grades"][0]["details"] == {"metric": "accuracy", "weight": 3}
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    loaded = load_run(path)  # `metrics` is derived: counted again, not read
    assert [(r.score, r.threshold) for r in loaded.results] == [
        (0.75, 0.7),
        (pytest.approx(1 / 3), 0.9),
        (None, None),
    ]
    assert loaded.tally().metric_figures() == metric_run().tally().metric_figures()
    assert render_report(loaded, "json") == text


def test_markdown_html_junit_and_csv_show_the_figures() -> None:
    run = metric_run()
    markdown = render_report(run, "md")
    assert "### Metrics" in markdown
    assert "| accuracy | m1 | 50.0% | 2/4 | 0 | 0.50 |" in markdown
    assert "| tone | m2 | 100.0% | 1/1 | 0 | 0.80 |" in markdown
    assert "weighted score 0.333 \\< threshold 0.9" in markdown  # why `fails` failed

    html = render_report(run, "html")
    section = html.split('<section id="metrics">', 1)[1].split("</section>", 1)[0]
    row = "<td>brevity</td><td>m1</td><td>0.0%</td><td>0/1</td><td>0</td><td>0.00</td>"
    assert row in section
    block = html.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    cells = {cell["i"]: cell for cell in json.loads(block)["cells"]}
    # A green cell with a red pill says why it is green, in the figures it shows.
    assert "weighted score 0.75 >= threshold 0.7" in cells["passes"]["f"]

    root = ET.fromstring(render_report(run, "xml"))
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    properties = {p.get("name"): p.get("value") for p in suites["m1"].iter("property")}
    assert properties["metric.accuracy.pass_rate"] == "0.5"
    assert properties["metric.accuracy.total"] == "4"
    assert properties["metric.brevity.mean_score"] == "0"
    assert "metric.tone.pass_rate" not in properties  # m1 had no tone grade
    cases = {case.get("name"): case for case in suites["m1"].iter("testcase")}
    # Passed on its weighted score: a failed grade is no JUnit failure.
    assert cases["passes"].find("failure") is None
    out = cases["passes"].findtext("system-out") or ""
    assert "weighted score 0.75 >= threshold 0.7" in out
    assert "[metric accuracy, weight 3]" in out
    failure = cases["fails"].find("failure")
    assert failure is not None
    assert failure.get("type") == "ScoreBelowThreshold"

    rows = list(csv.DictReader(io.StringIO(render_report(run, "csv"))))
    assert (rows[0]["score"], rows[0]["threshold"]) == ("0.75", "0.7")
    assert rows[0]["grades"] == "check:contains[accuracy]=PASS;check:contains[accuracy]=FAIL"
    assert (rows[2]["score"], rows[2]["threshold"]) == ("", "")


def test_a_run_without_metrics_or_thresholds_reports_as_before() -> None:
    run = plain_run()
    data = json.loads(render_report(run, "json"))
    assert "metrics" not in data
    assert all("score" not in r and "threshold" not in r for r in data["results"])
    assert "Metrics" not in render_report(run, "md")
    assert 'id="metrics"' not in render_report(run, "html")
    assert "metric." not in render_report(run, "xml")
    header = render_report(run, "csv").splitlines()[0]
    assert header == ",".join(COLUMNS)
    assert outcome(run.results[1]) is not None  # a failed grade still fails, as ever


# --- load errors, located --------------------------------------------------------------------


def load_problem(tmp_path: Path, body: str) -> str:
    suite = tmp_path / "suite.yaml"
    suite.write_text(textwrap.dedent(body), encoding="utf-8")
    with pytest.raises(PromptumError) as caught:
        load_suite(suite)
    return str(caught.value)


@pytest.mark.parametrize(
    ("line", "field", "expected"),
    [
        ("{type: contains, value: x, metric: 'two words'}", "metric", "must be one word"),
        ("{type: contains, value: x, metric: a/b}", "metric", "must be one word"),
        ("{type: contains, value: x, weight: -1}", "weight", "greater than or equal to 0"),
        ("{type: contains, value: x, weight: .inf}", "weight", "finite"),
        ("{type: contains, value: x, weight: '2'}", "weight", "valid number"),
    ],
)
def test_a_bad_metric_or_weight_is_a_located_load_error(
    tmp_path: Path, line: str, field: str, expected: str
) -> None:
    message = load_problem(
        tmp_path,
        f"""\
        models: [local/smollm2]
        test_cases:
          - id: one
            query: Hi
            checks:
              - {line}
        """,
    )
    assert "suite.yaml:6" in message, message
    assert field in message, message
    assert expected in message, message


@pytest.mark.parametrize("where", ["case", "defaults"])
@pytest.mark.parametrize(
    ("value", "expected"), [("1.5", "less than or equal to 1"), ("yes", "valid number")]
)
def test_a_threshold_outside_0_to_1_is_a_located_load_error(
    tmp_path: Path, where: str, value: str, expected: str
) -> None:
    defaults = f"defaults: {{threshold: {value}}}\n" if where == "defaults" else ""
    own = f"    threshold: {value}\n" if where == "case" else ""
    message = load_problem(
        tmp_path,
        "models: [local/smollm2]\n" + defaults + "test_cases:\n  - id: one\n    query: Hi\n" + own,
    )
    line = "suite.yaml:2" if where == "defaults" else "suite.yaml:5"
    assert line in message, message
    assert "threshold" in message, message
    assert expected in message, message


def test_a_criterion_metric_is_checked_and_unknown_keys_still_name_it(tmp_path: Path) -> None:
    message = load_problem(
        tmp_path,
        """\
        models: [local/smollm2]
        judge:
          criteria:
            polite: {rubric: Is courteous, metric: "not ok"}
        test_cases:
          - {id: one, query: Hi}
        """,
    )
    assert "suite.yaml:4" in message, message
    assert "must be one word" in message, message
    message = load_problem(
        tmp_path,
        """\
        models: [local/smollm2]
        judge:
          criteria:
            polite: {rubric: Is courteous, metrc: tone}
        test_cases:
          - {id: one, query: Hi}
        """,
    )
    assert "Did you mean 'metric'?" in message, message


def test_metrics_weights_and_thresholds_reach_the_cases(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        textwrap.dedent(
            """\
            models: [local/smollm2]
            defaults: {threshold: 0.6}
            judge:
              criteria:
                polite: {rubric: Is courteous, metric: tone}
            test_cases:
              - id: one
                query: Hi
                checks: [{type: contains, value: x, metric: accuracy, weight: 2.5}]
              - id: two
                query: Hi
                threshold: 0.9
            """
        ),
        encoding="utf-8",
    )
    one, two = load_suite(suite).cases
    assert (one.grading.threshold, two.grading.threshold) == (0.6, 0.9)
    assert (one.grading.checks[0].metric, one.grading.checks[0].weight) == ("accuracy", 2.5)
    assert one.grading.judge is not None
    assert one.grading.judge.criteria[0].metric == "tone"


def test_a_data_file_column_check_takes_a_metric_and_weight(tmp_path: Path) -> None:
    (tmp_path / "rows.csv").write_text("id,country,capital\na,France,Paris\n", encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        textwrap.dedent(
            """\
            models: [local/smollm2]
            prompt: "Capital of {{ country }}?"
            cases_from: [rows.csv]
            columns: {capital: {type: contains, metric: accuracy, weight: 2}}
            """
        ),
        encoding="utf-8",
    )
    (case,) = load_suite(suite).cases
    assert (
        case.grading.checks[0].value,
        case.grading.checks[0].metric,
        case.grading.checks[0].weight,
    ) == (
        "Paris",
        "accuracy",
        2,
    )
