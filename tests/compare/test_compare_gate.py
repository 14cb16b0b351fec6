"""The gate of `compare --fail-on-regression` on small suites: must-pass cases, --max-regressed,
the gate line in every output, and runs that share no cases."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.compare import DEFAULT_MAX_REGRESSED, compare_runs, comparison_gate
from promptum.errors import ConfigError
from promptum.reporting import write_report
from promptum.store import RunStore
from promptum.values.run_result import RunResult
from tests.store.samples import GPT, LOCAL, T0, make_run
from tests.store.test_store import record

SMALL = ["capital", "city-injection", "greeting", "maths", "translate"]


def run(
    run_id: str,
    failing: set[str],
    *,
    cases: list[str] = SMALL,
    must_pass: set[str] = frozenset(),  # type: ignore[assignment]
    models: tuple[str, ...] = (LOCAL,),
    hours: int = 0,
) -> RunResult:
    """A run of `cases` on `models`: `failing` fail, the rest pass; `must_pass` marked so."""
    outcomes = {
        (case, model): ["fail" if case in failing else "pass"] for model in models for case in cases
    }
    built = make_run(run_id, outcomes, started=T0 + timedelta(hours=hours))
    results = [r.model_copy(update={"must_pass": r.case_id in must_pass}) for r in built.results]
    return built.model_copy(update={"results": results})


def store_of(tmp_path: Path, *runs: RunResult) -> Path:
    db = tmp_path / "runs.sqlite"
    store = RunStore(db)
    for each in runs:
        record(store, each)
    return db


def invoke(db: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    return done.exit_code, done.output


def gate_line(out: str) -> str:
    lines = [line for line in out.splitlines() if line.startswith("gate: ")]
    assert len(lines) == 1, out
    return lines[0]


def test_a_small_suite_that_broke_entirely_fails_the_gate(tmp_path: Path) -> None:
    # Five falls and no rise: the sign test gives p = 0.0625, never significant.
    db = store_of(tmp_path, run("base", set()), run("broken", set(SMALL), hours=1))
    code, out = invoke(db, "compare", "base", "broken", "--fail-on-regression")
    assert code == 1, out
    assert "no significant change" in out
    assert gate_line(out) == f"gate: FAIL — 5 cases regressed on {LOCAL} > 1 (--max-regressed)"


def test_a_must_pass_regression_fails_whatever_max_regressed_allows(tmp_path: Path) -> None:
    db = store_of(
        tmp_path,
        run("base", set()),
        run("next", {"city-injection"}, must_pass={"city-injection"}, hours=1),
    )
    code, out = invoke(
        db, "compare", "base", "next", "--fail-on-regression", "--max-regressed", "3"
    )
    assert code == 1, out
    assert gate_line(out) == (
        f"gate: FAIL — must-pass case city-injection regressed (pass → fail) on {LOCAL}"
    )
    assert "city-injection: pass → fail (must pass)" in out


def test_must_pass_is_what_b_says_now(tmp_path: Path) -> None:
    # B is the suite as it stands: a baseline stored before the mark existed does not hide a
    # regression, and a mark the change removed (visible in its diff) no longer gates.
    db = store_of(
        tmp_path,
        run("unmarked", set()),
        run("marked", {"city-injection"}, must_pass={"city-injection"}, hours=1),
        run("marked-base", set(), must_pass={"city-injection"}, hours=2),
        run("unmarked-next", {"city-injection"}, hours=3),
    )
    code, out = invoke(db, "compare", "unmarked", "marked", "--fail-on-regression")
    assert code == 1, out
    assert "must-pass case city-injection regressed" in gate_line(out)
    code, out = invoke(db, "compare", "marked-base", "unmarked-next", "--fail-on-regression")
    assert code == 0, out
    assert gate_line(out) == (
        "gate: PASS — 1 case regressed ≤ 1 (--max-regressed); no must-pass cases; "
        "no significant regression"
    )


def test_max_regressed_sets_how_many_regressed_cases_pass(tmp_path: Path) -> None:
    db = store_of(
        tmp_path,
        run("base", set(), must_pass={"capital"}),
        run("next", {"greeting", "maths", "translate"}, must_pass={"capital"}, hours=1),
    )
    code, out = invoke(
        db, "compare", "base", "next", "--fail-on-regression", "--max-regressed", "3"
    )
    assert code == 0, out
    assert gate_line(out) == (
        "gate: PASS — 3 cases regressed ≤ 3 (--max-regressed); "
        "none of 1 case marked must-pass regressed; no significant regression"
    )
    code, out = invoke(
        db, "compare", "base", "next", "--fail-on-regression", "--max-regressed", "2"
    )
    assert code == 1, out
    assert gate_line(out) == f"gate: FAIL — 3 cases regressed on {LOCAL} > 2 (--max-regressed)"
    code, out = invoke(db, "compare", "base", "next", "--fail-on-regression")
    assert code == 1, out
    assert f"3 cases regressed on {LOCAL} > {DEFAULT_MAX_REGRESSED}" in gate_line(out)


def test_max_regressed_0_fails_on_any_regressed_case(tmp_path: Path) -> None:
    db = store_of(tmp_path, run("base", set()), run("next", {"maths"}, hours=1))
    code, out = invoke(
        db, "compare", "base", "next", "--fail-on-regression", "--max-regressed", "0"
    )
    assert code == 1, out
    assert gate_line(out) == f"gate: FAIL — 1 case regressed on {LOCAL} > 0 (--max-regressed)"


def test_a_significant_regression_names_the_model_and_p(tmp_path: Path) -> None:
    cases = [f"case-{i}" for i in range(30)]
    db = store_of(
        tmp_path,
        run("base", set(), cases=cases),
        run("broken", set(cases[10:20]), cases=cases, hours=1),
    )
    args = ["compare", "base", "broken", "--fail-on-regression", "--max-regressed", "10"]
    code, out = invoke(db, *args)
    assert code == 1, out
    assert gate_line(out) == (f"gate: FAIL — significant regression on {LOCAL} (-33.3 pp, p=0.002)")


def test_every_failed_rule_is_named_for_every_model(tmp_path: Path) -> None:
    both = (LOCAL, GPT)
    db = store_of(
        tmp_path,
        run("base", set(), models=both, must_pass={"capital"}),
        run("next", {"capital", "maths"}, models=both, must_pass={"capital"}, hours=1),
    )
    code, out = invoke(db, "compare", "base", "next", "--fail-on-regression")
    assert code == 1, out
    assert gate_line(out) == (
        f"gate: FAIL — must-pass case capital regressed (pass → fail) on {LOCAL}; "
        f"2 cases regressed on {LOCAL} > 1 (--max-regressed); "
        f"must-pass case capital regressed (pass → fail) on {GPT}; "
        f"2 cases regressed on {GPT} > 1 (--max-regressed)"
    )


def test_two_models_of_one_run_are_gated_too(tmp_path: Path) -> None:
    outcomes = {(case, LOCAL): ["pass"] for case in SMALL} | {
        (case, GPT): ["fail"] for case in SMALL
    }
    db = store_of(tmp_path, make_run("one", outcomes))
    code, out = invoke(
        db, "compare", "one", "--model-a", LOCAL, "--model-b", GPT, "--fail-on-regression"
    )
    assert code == 1, out
    assert gate_line(out) == (
        f"gate: FAIL — 5 cases regressed on {LOCAL} → {GPT} > 1 (--max-regressed)"
    )


def test_the_gate_line_heads_the_markdown_and_html(tmp_path: Path) -> None:
    db = store_of(
        tmp_path,
        run("base", set()),
        run("next", {"city-injection"}, must_pass={"city-injection"}, hours=1),
    )
    md, html = tmp_path / "cmp.md", tmp_path / "cmp.html"
    args = ["compare", "base", "next", "--fail-on-regression", "-o", str(md), "-o", str(html)]
    code, out = invoke(db, *args)
    assert code == 1, out
    line = gate_line(out)
    markdown = md.read_text()
    assert f"❌ **{line}**" in markdown.splitlines()
    assert "- city-injection **(must pass)**: pass → fail" in markdown
    page = html.read_text()
    assert f'<p class="banner regression" id="gate">{line}</p>' in page
    assert '<span class="tag must-pass">must pass</span>' in page
    # Without a gate the outputs are as before: no gate line to misread.
    code, _ = invoke(db, "compare", "base", "next", "-o", str(md), "-o", str(html))
    assert code == 0
    assert "gate:" not in md.read_text()
    assert 'id="gate"' not in html.read_text()


def test_a_passing_gate_says_why_in_the_markdown(tmp_path: Path) -> None:
    db = store_of(tmp_path, run("base", set()), run("next", set(), hours=1))
    md = tmp_path / "cmp.md"
    code, out = invoke(db, "compare", "base", "next", "--fail-on-regression", "-o", str(md))
    assert code == 0, out
    assert gate_line(out).startswith("gate: PASS — 0 cases regressed ≤ 1 (--max-regressed)")
    assert "✅ **gate: PASS" in md.read_text()


def test_max_regressed_without_the_gate_is_a_usage_error(tmp_path: Path) -> None:
    db = store_of(tmp_path, run("base", set()), run("next", set(SMALL), hours=1))
    code, out = invoke(db, "compare", "base", "next", "--max-regressed", "2")
    assert code == 2
    assert "--max-regressed sets the gate of --fail-on-regression" in out
    code, out = invoke(
        db, "compare", "base", "next", "--fail-on-regression", "--max-regressed", "-1"
    )
    assert code == 2
    assert "-1 is not in the range x>=0" in out


def test_the_help_states_the_default() -> None:
    done = CliRunner().invoke(main, ["compare", "--help"])
    assert f"[default: {DEFAULT_MAX_REGRESSED}]" in " ".join(done.output.split())


def test_runs_that_share_no_cases_are_an_error(tmp_path: Path) -> None:
    db = store_of(
        tmp_path,
        run("geo", set()),
        run("maths", set(), cases=[f"sum-{i}" for i in range(8)], hours=1),
    )
    code, out = invoke(db, "compare", "geo", "maths", "--fail-on-regression")
    assert code == 2, out
    assert "+0.0 pp" not in out
    assert (
        f"error: the runs share no cases: run A (geo, {LOCAL}) has cases capital, "
        "city-injection, greeting, maths, translate; "
        f"run B (maths, {LOCAL}) has cases sum-0, sum-1, sum-2, sum-3, sum-4 and 3 more; "
        "compare two runs of the same suite (case ids must match)"
    ) in " ".join(out.split())


def test_a_results_file_sharing_no_cases_is_an_error(tmp_path: Path) -> None:
    db = store_of(tmp_path, run("geo", set()))
    other = tmp_path / "other.json"
    write_report(run("other", set(), cases=["only-here"]), other)
    code, out = invoke(db, "compare", str(other), "geo")
    assert code == 2, out
    assert "run A (other, local/smollm2) has case only-here;" in " ".join(out.split())


def test_a_results_file_carries_the_must_pass_mark(tmp_path: Path) -> None:
    db = store_of(tmp_path, run("base", set()))
    after = tmp_path / "results.json"
    write_report(run("after", {"maths"}, must_pass={"maths"}), after)
    code, out = invoke(db, "compare", "base", str(after), "--fail-on-regression")
    assert code == 1, out
    assert gate_line(out) == f"gate: FAIL — must-pass case maths regressed (pass → fail) on {LOCAL}"


def test_two_models_of_one_run_sharing_no_cases_are_an_error(tmp_path: Path) -> None:
    outcomes = {("capital", LOCAL): ["pass"], ("maths", GPT): ["pass"]}
    db = store_of(tmp_path, make_run("one", outcomes))
    code, out = invoke(db, "compare", "one", "--model-a", LOCAL, "--model-b", GPT)
    assert code == 2, out
    assert (
        f"error: models {LOCAL} and {GPT} of run one share no cases: {LOCAL} has case "
        f"capital; {GPT} has case maths; compare two models that ran the same cases"
    ) in " ".join(out.split())


def test_the_gate_from_python() -> None:
    base, broken = run("base", set()), run("broken", set(SMALL), must_pass={"maths"})
    comparison = compare_runs(base, broken)
    decision = comparison_gate(comparison, max_regressed=5)
    assert not decision.passed
    assert decision.reason == f"must-pass case maths regressed (pass → fail) on {LOCAL}"
    assert comparison.models[0].must_pass == frozenset({"maths"})
    assert [c.case_id for c in comparison.models[0].must_pass_regressions] == ["maths"]
    assert comparison_gate(compare_runs(base, base)).passed
    with pytest.raises(ValueError, match="0 or more"):
        comparison_gate(comparison, max_regressed=-1)
    with pytest.raises(ConfigError, match="share no cases"):
        compare_runs(base, run("other", set(), cases=["x"]))


def test_a_flaky_fall_of_a_must_pass_case_is_a_regression() -> None:
    base = make_run("base", {("guard", LOCAL): ["pass", "pass", "pass"]})
    after = make_run("after", {("guard", LOCAL): ["pass", "fail", "pass"]})
    marked = [r.model_copy(update={"must_pass": True}) for r in after.results]
    decision = comparison_gate(
        compare_runs(base, after.model_copy(update={"results": marked})), max_regressed=5
    )
    assert decision.line == (
        f"gate: FAIL — must-pass case guard regressed (pass → flaky 2/3) on {LOCAL}"
    )


def test_an_interrupted_run_b_fails_the_gate() -> None:
    base = run("base", set())
    cut_short = run("cut", set()).model_copy(update={"complete": False})
    decision = comparison_gate(compare_runs(base, cut_short))
    assert not decision.passed
    assert decision.reason == "run cut was interrupted before every case ran"
