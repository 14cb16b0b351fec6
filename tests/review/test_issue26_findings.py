"""What a review of issue 26 (expressions, transforms, metrics, file vars) found, each fixed.

Each test failed before its fix: a located error instead of a traceback, a run that does not
crash on huge weights, a report that stays well-formed whatever a python check names its
metric, a resume that does not reuse results graded against other vars, a glob that cannot
be made to list 2**40 paths by two committed links.
"""

from __future__ import annotations

import os
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.completion import Completion
from promptum.grades import Grade
from promptum.metrics import MetricTally, thresholded_status, weighted_score
from promptum.reporting import render_report
from promptum.results import CaseResult, Message, RunResult
from promptum.runner import grade, plan_fingerprint
from promptum.suites import load_suite


def write(folder: Path, text: str, name: str = "suite.yaml") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --- expressions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "nested", ["(" * 5000 + "1" + ")" * 5000 + " == 1", "not " * 3000 + "true"]
)
def test_an_expression_nested_too_deeply_is_a_located_load_error(
    tmp_path: Path, nested: str
) -> None:
    """Before: RecursionError out of Jinja's parser, a traceback from `promptum validate`."""
    suite = write(
        tmp_path,
        f"""\
        models: [openai/gpt-4o-mini]
        test_cases:
          - id: a
            query: hi
            checks:
              - {{type: expr, value: "{nested}"}}
        """,
    )
    result = CliRunner().invoke(main, ["validate", str(suite)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "suite.yaml:6:" in result.output
    assert "nested too deeply" in result.output


def test_an_expression_may_call_the_mapping_methods_of_vars(tmp_path: Path) -> None:
    """Before: `vars.get` was a load error (`vars.get` is not defined for this case) and,
    past it, an error grade (`templates cannot call mappingproxy.get`)."""
    suite = write(
        tmp_path,
        """\
        models: [openai/gpt-4o-mini]
        vars: {topic: rome}
        test_cases:
          - id: a
            query: hi
            checks:
              - {type: expr, value: "vars.get('limit', 10) > 5"}
              - {type: expr, value: "'topic' in vars.keys() and 'rome' in vars.values()"}
              - {type: expr, value: "vars.items() | list | length == 1"}
              - {type: expr, value: "vars['topic'] == 'rome' and vars.topic == 'rome'"}
        """,
    )
    (case,) = load_suite(suite).cases
    grades = grade(case, Completion(text="an answer"))
    assert [(g.passed, g.error) for g in grades] == [(True, None)] * 4


def test_an_undefined_var_is_still_a_load_error_beside_a_method_call(tmp_path: Path) -> None:
    suite = write(
        tmp_path,
        """\
        models: [openai/gpt-4o-mini]
        vars: {topic: rome}
        test_cases:
          - id: a
            query: hi
            checks:
              - {type: expr, value: "vars.get('topic') == vars.topc"}
        """,
    )
    result = CliRunner().invoke(main, ["validate", str(suite)])
    assert result.exit_code == 2, result.output
    assert "`vars.topc` is not defined for this case (did you mean `vars.topic`?)" in result.output
    assert "vars.get" not in result.output


# --- weights and metrics -------------------------------------------------------------------


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


# --- the resume fingerprint ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "changes"),
    [
        ("checks: [{type: expr, value: 'output | length < vars.limit'}]", True),
        ("transform: 'output[:vars.limit]'\n    checks: [{type: contains, value: x}]", True),
        ("checks: [{type: contains, value: x}]", False),  # vars unread: as before
    ],
)
def test_vars_an_expression_reads_are_in_the_resume_fingerprint(
    tmp_path: Path, body: str, changes: bool
) -> None:
    """Before: changing `limit` kept the fingerprint, so `--resume` reused results graded
    against the old limit."""

    def fingerprint(limit: int) -> str:
        suite = write(
            tmp_path,
            f"models: [openai/gpt-4o-mini]\nvars: {{limit: {limit}}}\n"
            f"test_cases:\n  - id: a\n    query: hi\n    {body}\n",
        )
        return plan_fingerprint(load_suite(suite).cases)

    assert (fingerprint(100) != fingerprint(50)) is changes


# --- globs ---------------------------------------------------------------------------------


def links_to_itself(folder: Path) -> None:
    """`folder` with files, a hidden one, and two links to itself: `glob.glob`'s `**`
    follows both at every level, 2**40 paths before the system's link limit stops it."""
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("A", encoding="utf-8")
    (folder / "sub" / "b.md").write_text("B", encoding="utf-8")
    (folder / ".hidden.md").write_text("H", encoding="utf-8")
    os.symlink(".", folder / "l1")
    os.symlink(".", folder / "l2")


def test_a_files_glob_does_not_follow_links_to_folders(tmp_path: Path) -> None:
    links_to_itself(tmp_path / "docs")
    suite = write(
        tmp_path,
        """\
        models: [openai/gpt-4o-mini]
        test_cases:
          - id: s
            vars: {doc: {files: "docs/**/*.md"}}
            query: "{{ doc }}"
        """,
    )
    cases = load_suite(suite).cases
    assert [(c.id, c.vars["doc"]) for c in cases] == [("s-a", "A"), ("s-sub-b", "B")]


def test_a_cases_from_glob_does_not_follow_links_to_folders(tmp_path: Path) -> None:
    links_to_itself(tmp_path / "cases")
    (tmp_path / "cases" / "a.md").rename(tmp_path / "cases" / "one.yaml")
    (tmp_path / "cases" / "one.yaml").write_text("- {id: one, query: hi}\n", encoding="utf-8")
    suite = write(tmp_path, "models: [openai/gpt-4o-mini]\ncases_from: cases/**/*.yaml\n")
    assert [c.id for c in load_suite(suite).cases] == ["one"]


# --- the HTML report in a browser (last: its event loop stays open for the module) --------

PAYLOAD = (
    "</script><script>window.__pwned = 1</script>"
    "<img src=http://127.0.0.1:9/x onerror='window.__pwned = 2'>"
)


@pytest.mark.slow
def test_transformed_text_in_the_html_report_runs_nothing(browser: Any, tmp_path: Path) -> None:
    """What a transform gave (model text plus the suite's) is shown as text in the detail."""
    seen = Grade(
        "check", "contains", False, None, "no", "Contains", details={"transformed": PAYLOAD}
    )
    result = CaseResult(
        case_id="xss",
        model="m1",
        status="fail",
        messages=[Message(role="user", content="q")],
        completion=Completion(text=PAYLOAD, model="m1"),
        grades=[labelled(True, metric="accuracy"), seen],
    )
    run = RunResult(run_id="r1", suite="s", models=["m1"], results=[result])
    path = tmp_path / "report.html"
    path.write_text(render_report(run, "html"), encoding="utf-8")
    page = browser.new_page()
    events: list[str] = []
    page.on("dialog", lambda dialog: (events.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: events.append(str(error)))
    page.on("request", lambda request: events.append(request.url))
    page.goto(path.as_uri())
    page.locator("[data-cell] button.status").first.click()
    detail = page.locator("#detail-body").inner_text()
    assert "Response after transform" in detail
    assert detail.count("window.__pwned = 2") == 2  # the response, then what the check saw
    assert page.evaluate("window.__pwned") is None
    assert [e for e in events if not e.startswith("file://")] == []
    page.close()
