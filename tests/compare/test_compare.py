"""Comparing runs and models: deltas, significance, regressed/fixed/changed, flaky cases."""

from __future__ import annotations

import pytest

from promptum.compare import compare_runs, comparison_markdown, flaky_cases
from promptum.errors import ConfigError
from promptum.values.run_result import RunResult
from tests.store.samples import GPT, LOCAL, make_run, mixed_outcomes


def single(statuses: dict[str, str], model: str = LOCAL, run_id: str = "r") -> RunResult:
    return make_run(run_id, {(case, model): [status] for case, status in statuses.items()})


def test_one_case_wobble_is_not_a_regression() -> None:
    cases = {f"c{i}": "pass" for i in range(40)}
    after = {**cases, "c7": "fail"}
    comparison = compare_runs(single(cases, run_id="a"), single(after, run_id="b"))
    (pair,) = comparison.models
    assert [c.case_id for c in pair.of_kind("regressed")] == ["c7"]
    assert pair.delta == pytest.approx(-1 / 40)
    assert pair.p_value == 1.0
    assert pair.verdict == "no significant change"
    assert comparison.regressions == []


def test_many_cases_failing_is_a_significant_regression() -> None:
    cases = {f"c{i}": "pass" for i in range(40)}
    after = {**cases, **{f"c{i}": "fail" for i in range(8)}, "c30": "error"}
    comparison = compare_runs(single(cases, run_id="a"), single(after, run_id="b"))
    (pair,) = comparison.models
    assert pair.fell == 9
    assert pair.rose == 0
    assert pair.p_value == pytest.approx(2 / 2**9)
    assert pair.interval.high < 0
    assert pair.delta in pair.interval
    assert pair.verdict == "regression"
    assert comparison.regressions == [pair]
    assert pair.b.stats.errors == 1
    regressed = pair.of_kind("regressed")
    assert [c.after.outcome for c in regressed][-1] == "error"


def test_fixed_changed_and_cases_only_on_one_side() -> None:
    before = single({"a": "fail", "b": "pass", "c": "pass", "gone": "pass"}, run_id="a")
    after = single({"a": "pass", "b": "pass", "c": "pass", "new": "fail"}, run_id="b")
    # Same outcome, different words: a changed response.
    after.results[2] = after.results[2].model_copy(
        update={"completion": after.results[2].completion.model_copy(update={"text": "Paris!"})}
    )
    (pair,) = compare_runs(before, after).models
    assert [(c.kind, c.case_id) for c in pair.changes] == [("fixed", "a"), ("changed", "c")]
    assert pair.only_a == ["gone"]
    assert pair.only_b == ["new"]
    assert pair.shared == 3


def test_an_error_where_it_failed_is_a_change_at_the_same_pass_rate() -> None:
    before = single({"a": "fail", "b": "pass"}, run_id="a")
    after = single({"a": "error", "b": "pass"}, run_id="b")
    comparison = compare_runs(before, after)
    (pair,) = comparison.models
    [change] = pair.changes
    assert (change.kind, change.before.outcome, change.after.outcome) == (
        "changed",
        "fail",
        "error",
    )
    assert "Changed, same pass rate" in comparison_markdown(comparison)


def test_repeats_give_pass_rates_and_flaky_cases() -> None:
    run = make_run("rep", mixed_outcomes(cases=6, repeats=3))
    flaky = flaky_cases(run)
    assert [(r.case_id, r.model, r.passed, r.total) for r in flaky] == [
        ("capital-2", LOCAL, 2, 3),
        ("capital-5", LOCAL, 2, 3),
    ]
    assert flaky[0].outcome == "flaky 2/3"

    steadier = make_run(
        "rep2", {("capital-2", LOCAL): ["pass"] * 3, ("capital-5", LOCAL): ["fail"] * 3}
    )
    (pair,) = compare_runs(run, steadier).models
    assert pair.delta == pytest.approx(((1 - 2 / 3) + (0 - 2 / 3)) / 2)
    assert [(c.kind, c.case_id) for c in pair.changes] == [
        ("fixed", "capital-2"),
        ("regressed", "capital-5"),
    ]
    assert [r.case_id for r in pair.a.flaky] == ["capital-2", "capital-5"]
    assert pair.b.flaky == []


def test_two_models_within_one_run() -> None:
    run = make_run("both", mixed_outcomes(cases=6, repeats=1))
    comparison = compare_runs(run, run, [(LOCAL, GPT)])
    (pair,) = comparison.models
    assert (pair.a.model, pair.b.model) == (LOCAL, GPT)
    assert pair.b.stats.errors == 1
    # local fails capital-1 and capital-4; gpt passes all but the error on capital-5.
    assert [c.case_id for c in pair.of_kind("fixed")] == ["capital-1", "capital-4"]
    assert pair.latency_delta_ms == 0
    assert pair.cost_delta_usd == pytest.approx(5 * 0.0002)
    assert pair.judge_delta is not None


def test_runs_without_a_shared_model_need_a_pair() -> None:
    one = make_run("one", {("c", LOCAL): ["pass"], ("c", "x/y"): ["pass"]})
    other = make_run("other", {("c", GPT): ["pass"], ("c", "z/w"): ["pass"]})
    with pytest.raises(ConfigError, match=r"share no model.*--model-a"):
        compare_runs(one, other)
    with pytest.raises(ConfigError, match="has no results of model 'nope'"):
        compare_runs(one, other, [("nope", GPT)])


def test_markdown_is_inert_and_names_the_verdict() -> None:
    cases = {f"c{i}": "pass" for i in range(20)}
    after = {**cases, **{f"c{i}": "fail" for i in range(10)}}
    text = comparison_markdown(compare_runs(single(cases, run_id="a"), single(after, run_id="b")))
    assert "1 significant regression(s)" in text
    assert "🔻" in text
    assert "**Regressed (10)**" in text
    assert "<script>" not in text
    assert "\\<script\\>" in text


def test_same_response_over_more_repeats_is_not_a_change() -> None:
    def same_text(run: RunResult) -> RunResult:
        return run.model_copy(
            update={
                "results": [
                    r.model_copy(
                        update={"completion": r.completion.model_copy(update={"text": "Paris"})}
                    )
                    for r in run.results
                ]
            }
        )

    once = same_text(make_run("a", {("capital", LOCAL): ["pass"]}))
    twice = same_text(make_run("b", {("capital", LOCAL): ["pass", "pass"]}))
    (pair,) = compare_runs(once, twice).models
    assert pair.changes == []


def test_verdict_follows_the_direction_the_test_found() -> None:
    # 20 cases rise a little (4/5 -> 5/5), 5 fall all the way (5/5 -> 0/5): the mean falls,
    # but the sign test is significant because many more cases rose. Not a regression.
    before = {(f"up{i}", LOCAL): ["pass"] * 4 + ["fail"] for i in range(20)}
    before |= {(f"down{i}", LOCAL): ["pass"] * 5 for i in range(5)}
    after = {(f"up{i}", LOCAL): ["pass"] * 5 for i in range(20)}
    after |= {(f"down{i}", LOCAL): ["fail"] * 5 for i in range(5)}
    comparison = compare_runs(make_run("a", before), make_run("b", after))
    (pair,) = comparison.models
    assert (pair.rose, pair.fell) == (20, 5)
    assert pair.delta < 0
    assert pair.significant
    assert pair.verdict == "no significant change"
    assert comparison.regressions == []
