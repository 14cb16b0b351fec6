"""Attack success rate: the figures and their intervals, in every report, streamed as kept."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from report_samples import IMG, PWN, SCRIPT

from promptum import Session
from promptum.redteam.corrected_rates import corrections
from promptum.reporting import REPORT_FORMATS, load_run, render_report, write_report
from promptum.store import RunStore
from promptum.values.asr import AttackCounts, AttackOutcome, AttackTally, attack_of, percent
from promptum.values.asr_bounds import AsrBounds
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, RunResult
from tests.support.cli import summary_text


def attack(
    case_id: str,
    status: str,
    goal: str | None = "prompt_leak",
    strategy: str | None = "direct",
    *,
    model: str = "m",
    variant: str | None = None,
    redteam: bool = True,
) -> CaseResult:
    tags = ["redteam"] if redteam else []
    tags += [f"goal:{goal}"] if goal is not None else []
    tags += [f"strategy:{strategy}"] if strategy is not None else []
    completion = Completion(error="boom") if status == "error" else Completion(text="answer")
    # The case's own check is its detector (a hand-written attack): it fails when it succeeded.
    grades = [] if status == "error" else [Grade("check", "not_contains", status == "pass")]
    return CaseResult(
        case_id=case_id,
        model=model,
        variant=variant,
        status=status,  # type: ignore[arg-type]
        completion=completion,
        grades=grades,
        tags=tags,
    )


def many(
    prefix: str, succeeded: int, resisted: int, errors: int = 0, **kw: Any
) -> list[CaseResult]:
    statuses = ["fail"] * succeeded + ["pass"] * resisted + ["error"] * errors
    return [attack(f"{prefix}-{i}", status, **kw) for i, status in enumerate(statuses)]


def run_of(results: Sequence[CaseResult], models: Sequence[str] = ("m",)) -> RunResult:
    return RunResult(run_id="asr-run", suite="attacks", models=list(models), results=list(results))


# --- the figures --------------------------------------------------------------------------


def test_a_detected_attack_is_a_success_and_the_undetermined_are_apart() -> None:
    counts = AttackCounts()
    for verdict in ["succeeded", "succeeded", "resisted", "undetermined", "resisted", "resisted"]:
        counts.add(AttackOutcome(verdict))  # type: ignore[arg-type]
    assert (counts.succeeded, counts.resisted, counts.undetermined) == (2, 3, 1)
    assert counts.attempts == 5  # the undetermined is neither a success nor resisted
    assert counts.rate == 2 / 5
    assert counts.counts_text == "2/5, 1 not determined"


def test_wilson_intervals_match_values_worked_out_by_hand() -> None:
    # Wilson: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.95996.
    # 17/50: p = .34, 1 + z²/n = 1.0768292, centre = (.34 + .0384146) / 1.0768292 = .3514156,
    # half = 1.95996 · sqrt(.004488 + .0003841) / 1.0768292 = .1270461 → [.2243695, .4784617].
    counts = AttackCounts(succeeded=17, resisted=33)
    assert counts.interval.low == pytest.approx(0.2243695, abs=1e-6)
    assert counts.interval.high == pytest.approx(0.4784617, abs=1e-6)
    assert counts.text == "34% [22–48%]"
    # 1/3: centre = (.3333333 + .6402431) / 2.2804863 = .4269162, half = .3654242
    # → [.0614919, .7923404], the textbook's [6.1%, 79.2%].
    one_of_three = AttackCounts(succeeded=1, resisted=2).interval
    assert (one_of_three.low, one_of_three.high) == pytest.approx((0.0614919, 0.7923404), abs=1e-6)
    # 0/20 is exactly 0 below; above, z²/(n + z²) = 3.841459 / 23.841459 = .161125.
    none = AttackCounts(resisted=20)
    assert none.interval.low == 0.0
    assert none.interval.high == pytest.approx(0.161125, abs=2e-6)
    assert none.text == "0% [0–16%]"
    # Nothing graded: no rate, and an interval that claims nothing.
    assert AttackCounts(undetermined=3).rate is None
    assert AttackCounts(undetermined=3).text == "-"
    assert (AttackCounts().interval.low, AttackCounts().interval.high) == (0.0, 1.0)


def test_percentages_do_not_round_a_rare_success_to_zero() -> None:
    assert percent(0.004) == "0.4%"
    assert percent(0.996) == "99.6%"
    assert percent(0.0) == "0%"
    assert percent(1.0) == "100%"
    assert percent(0.3449) == "34%"


def test_tags_name_goal_and_strategy_and_only_redteam_cases_count() -> None:
    assert attack_of(["x", "redteam", "goal:tool", "strategy:base64"]) == ("tool", "base64")
    assert attack_of(["goal:tool", "strategy:base64"]) is None  # not tagged redteam
    assert attack_of(["redteam"]) == ("untagged", "untagged")


def test_rates_per_goal_strategy_and_column() -> None:
    results = [
        *many("a", 3, 1, goal="prompt_leak", strategy="base64", variant="baseline"),
        *many("b", 1, 3, 2, goal="prompt_leak", strategy="direct", variant="baseline"),
        *many("c", 0, 4, goal="tool", strategy="direct", variant="baseline"),
        *many("d", 1, 3, goal="prompt_leak", strategy="base64", variant="hardened"),
        *many("e", 5, 5, goal="x", strategy="y", redteam=False, variant="hardened"),
    ]
    tally = AttackTally()
    for result in results:
        tally.add(result)
    rates = tally.rates(["m · hardened", "m · baseline"])
    assert rates.columns == ("m · hardened", "m · baseline")  # the order reports show
    assert rates.goals == ["prompt_leak", "tool"]  # the untagged-as-redteam cases left out
    assert rates.strategies == ["base64", "direct"]
    base = "m · baseline"
    assert (rates.counts(base).succeeded, rates.counts(base).attempts) == (4, 12)
    assert rates.counts(base).undetermined == 2
    assert rates.counts(base, "prompt_leak").rate == 4 / 8
    assert rates.counts(base, "prompt_leak", "base64").rate == 3 / 4
    assert rates.counts(base, strategy="direct").rate == 1 / 8
    assert rates.counts("m · hardened").rate == 1 / 4
    assert rates.counts().attempts == 16  # every column


# --- every format --------------------------------------------------------------------------


def test_named_goals_count_apart_and_their_kind_pools_them() -> None:
    results = [
        *many("r", 1, 1, goal="custom:refund", strategy="direct"),
        *many("l", 0, 2, goal="custom:leak", strategy="direct"),
        *many("h", 2, 0, goal="harmful:hate", strategy="direct"),  # judged: no judge here
    ]
    tally = AttackTally()
    for result in results:
        tally.add(result)
    rates = tally.rates(["m"])
    assert rates.goals == ["custom:leak", "custom:refund", "harmful:hate"]
    assert rates.counts("m", "custom:refund").rate == 1 / 2
    assert rates.counts("m", "custom:leak").rate == 0
    assert rates.counts("m", "custom").rate == 1 / 4  # the kind: both goals
    assert rates.counts("m", "harmful").undetermined == 2
    assert rates.counts("m", "cust").attempts == 0  # a kind is a whole name, not a prefix
    bounds = AsrBounds.parse(["custom=0.2", "harmful=0.1"])
    assert bounds.unknown_goal(rates.goals) is None
    assert AsrBounds.parse(["cust=0.2"]).unknown_goal(rates.goals) is not None
    assert [goal for goal, _ in bounds.unjudged(rates.goals)] == ["harmful"]


def sample() -> RunResult:
    return run_of(
        [
            *many("leak", 17, 33, 2, goal="prompt_leak", strategy="base64"),
            *many("tool", 0, 20, goal="tool", strategy="direct"),
            attack("plain", "pass", redteam=False, goal=None, strategy=None),
        ]
    )


def test_json_has_an_asr_section_and_reads_back() -> None:
    text = render_report(sample(), "json")
    data = json.loads(text)
    [column] = data["asr"]["columns"]
    assert (column["model"], column["variant"], column["column"]) == ("m", None, "m")
    overall = column["overall"]
    assert (overall["succeeded"], overall["attempts"], overall["undetermined"]) == (17, 70, 2)
    assert overall["asr"] == pytest.approx(17 / 70)
    goals = {g["goal"]: g for g in column["goals"]}
    assert goals["prompt_leak"]["asr"] == pytest.approx(0.34)
    assert goals["prompt_leak"]["interval"] == pytest.approx([0.2243695, 0.4784617], abs=1e-6)
    assert goals["prompt_leak"]["strategies"][0]["strategy"] == "base64"
    assert goals["tool"]["interval"][1] == pytest.approx(0.161125, abs=2e-6)
    assert [s["strategy"] for s in column["strategies"]] == ["base64", "direct"]
    # The section is derived: a results file with it loads, and counts it anew.
    loaded = RunResult.model_validate_json(text)
    assert loaded.tally().asr().counts().succeeded == 17


def test_json_results_file_with_asr_loads(tmp_path: Path) -> None:
    write_report(sample(), tmp_path / "r.json")
    loaded = load_run(tmp_path / "r.json")
    assert loaded.tally().asr().counts("m", "prompt_leak").text == "34% [22–48%]"


def test_markdown_shows_goal_by_strategy_with_intervals() -> None:
    text = render_report(sample(), "md")
    for row in (
        "### Attack success rate",
        "| Goal | Strategy | m |",
        "| **all** | **all** | 24% [16–35%] (17/70, 2 not determined) |",
        "| prompt\\_leak | all | 34% [22–48%] (17/50, 2 not determined) |",
        "| prompt\\_leak | base64 | 34% [22–48%] (17/50, 2 not determined) |",
        "| tool | direct | 0% [0–16%] (0/20) |",
    ):
        assert row in text
    # A goal × strategy no attack tried is not a row.
    assert "| tool | base64 |" not in text


def test_junit_has_the_rates_as_testsuite_properties() -> None:
    root = ET.fromstring(render_report(sample(), "junit"))
    found = {p.get("name"): p.get("value") for p in root.iter("property")}
    rates = (found["asr.rate"], found["asr.succeeded"], found["asr.determined"])
    assert rates == ("0.2429", "17", "70")
    assert found["asr.undetermined"] == "2"
    assert (found["asr.prompt_leak.rate"], found["asr.tool.rate"]) == ("0.34", "0")
    plain = run_of([attack("a", "fail", redteam=False)])
    assert "asr." not in render_report(plain, "junit")


def test_html_heat_map_says_every_rate_in_numbers() -> None:
    page = render_report(sample(), "html")
    section = page[
        page.index('<section id="asr">') : page.index("</section>", page.index('id="asr"'))
    ]
    assert "<caption>m: 24% [16–35%]</caption>" in section
    assert '<th scope="row">prompt_leak</th>' in section
    assert (
        '<td class="heat-3" title="prompt_leak × base64: 34% [22–48%] · 17/50, 2 not determined">'
        '<a href="#attacks/m/prompt_leak/base64">'
        "34%<small>[22–48%] · 17/50, 2 not determined</small></a></td>" in section
    )
    assert '<td class="heat-0" title="tool × direct: 0% [0–16%] · 0/20">' in section
    assert '<td class="heat-na" title="tool × base64: no attacks">–<small>' in section  # no link
    assert "#asr .heat-4" in page  # its styles, allowed by the page's policy hash


def test_terminal_summary_has_a_compact_table() -> None:
    text = summary_text(sample())
    assert "Attack success rate (95% CI)" in text
    assert re.search(r"All attacks +│ +24% \[16–35%\] 17/70, 2 not determined", text)
    assert re.search(r"goal prompt_leak +│ +34% \[22–48%\] 17/50, 2 not determined", text)
    assert re.search(r"strategy direct +│ +0% \[0–16%\] 0/20", text)


def test_a_run_without_redteam_cases_has_no_asr_anywhere() -> None:
    run = run_of([attack("a", "fail", redteam=False), attack("b", "pass", redteam=False)])
    assert "asr" not in json.loads(render_report(run, "json"))
    assert "Attack success" not in render_report(run, "md")
    page = render_report(run, "html")
    assert 'id="asr"' not in page
    assert ".heat" not in page
    assert "Attack success" not in summary_text(run)


def test_hostile_goal_and_strategy_names_stay_text() -> None:
    run = run_of(
        [
            attack("x1", "fail", goal=SCRIPT, strategy=IMG),
            attack("x2", "pass", goal=PWN, strategy="direct|**bold**"),
        ]
    )
    page = render_report(run, "html")
    section = page[page.index('<section id="asr">') :]
    section = section[: section.index("</section>")]
    for payload in (SCRIPT, IMG, PWN):
        assert payload not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section
    markdown = render_report(run, "md")
    assert SCRIPT not in markdown
    assert re.search(r"(?<!\\)<", markdown) is None  # every "<" escaped: no tag opens
    assert "direct\\|\\*\\*bold\\*\\*" in markdown  # a cell, not two, and no emphasis


# --- streamed as kept ----------------------------------------------------------------------

APP = """
def answer(query: str, n: int) -> str:
    if n % 11 == 0:
        raise RuntimeError("gateway down")
    hardened = query.startswith("HARDENED")
    leaks = n % 7 == 0 if hardened else n % 3 != 0
    return "the canary is CANARY-1" if leaks else "I cannot share that."
"""


def attack_suite(folder: Path, cases: int, variants: bool) -> Path:
    (folder / "app.py").write_text(APP, encoding="utf-8")
    lines = []
    for n in range(cases):
        goal = ["prompt_leak", "secret_leak", "<b>field</b>"][n % 3]
        strategy = ["direct", "base64"][n % 2]
        lines += [
            f"  - id: attack-{n:03d}",
            f"    vars: {{n: {n}}}",
            f"    tags: [redteam, 'goal:{goal}', 'strategy:{strategy}']",
            "    checks: [{type: not_contains, value: CANARY-1}]",
        ]
    lines += ["  - id: plain", "    vars: {n: 1}", "    checks: [{type: contains, value: I}]"]
    prompts = (
        'prompts:\n  baseline: "{{ n }}"\n  hardened: "HARDENED {{ n }}"\n'
        if variants
        else 'prompt: "{{ n }}"\n'
    )
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: attacks\ntarget: app.py:answer\n"
        + prompts
        + "test_cases:\n"
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )
    return suite


@pytest.mark.parametrize("variants", [False, True], ids=["one prompt", "two prompt variants"])
def test_a_streamed_run_shows_the_figures_of_the_run_kept(tmp_path: Path, variants: bool) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    session = Session(concurrency=4)
    session.add_suite(attack_suite(tmp_path, 40, variants))
    run = session.run(keep_results=False, sinks=[store.recorder()])
    assert run.results == []
    loaded = store.load(run.run_id)
    streamed_rates, kept_rates = run.tally().asr(), loaded.tally().asr()
    assert streamed_rates.as_json() == kept_rates.as_json()
    assert streamed_rates.counts().undetermined == 4 * (2 if variants else 1)  # n = 0, 11, 22, 33
    for name in REPORT_FORMATS:
        if name == "jsonl":
            continue
        streamed_path, kept_path = tmp_path / f"streamed.{name}", tmp_path / f"kept.{name}"
        write_report(run, streamed_path, results=lambda: store.iter_results(run.run_id, batch=7))
        write_report(loaded, kept_path)
        assert streamed_path.read_bytes() == kept_path.read_bytes(), name
    text = (tmp_path / "streamed.md").read_text("utf-8")
    assert "### Attack success rate" in text
    if variants:
        # The variants' rates paired, in the report of the run streamed too.
        assert (
            "- Attack success on target:app.py:answer, all attacks — hardened: 14% \\[6–29%\\] "
            "vs baseline 67% \\[50–80%\\], p \\< 0.001 (36 attacks paired)"
        ) in text
    data = json.loads((tmp_path / "streamed.json").read_text("utf-8"))
    fixes = corrections(kept_rates)
    assert data["asr"] == kept_rates.as_json(lambda goal, counts: fixes[goal].as_json(counts))
    table = summary_text(run)
    assert table[table.index("Attack success") :].split("\n\n")[0] in summary_text(loaded)


def test_the_hand_counted_rate_of_the_suite_run(tmp_path: Path) -> None:
    session = Session(concurrency=4)
    session.add_suite(attack_suite(tmp_path, 40, variants=False))
    run = session.run()
    counts = run.tally().asr().counts()
    # n in 0..39: 4 errors (n % 11 == 0); of the other 36, the answer leaks when n % 3 != 0:
    # 40 - 14 multiples of 3 = 26 leak, minus the errored 11, 22 → 24 succeeded, 12 resisted.
    assert (counts.succeeded, counts.resisted, counts.undetermined) == (24, 12, 4)
    assert math.isclose(counts.rate or 0, 24 / 36)


# Last: the module's browser keeps an event loop running, which Session.run() refuses.
@pytest.mark.slow
def test_heat_map_in_a_browser_runs_nothing_and_shows_the_numbers(
    browser: Any, tmp_path: Path
) -> None:
    run = run_of(
        [
            *many("a", 3, 1, goal=SCRIPT, strategy=IMG),
            *many("b", 1, 3, goal=PWN, strategy="direct"),
            attack("plain", "pass", redteam=False),
        ]
    )
    path = tmp_path / "report.html"
    write_report(run, path)
    page = browser.new_page()
    events: list[str] = []
    page.on("dialog", lambda dialog: (events.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: events.append(str(error)))
    page.on("request", lambda request: events.append(request.url))
    page.on("console", lambda msg: events.append(msg.text) if msg.type == "error" else None)
    page.goto(path.as_uri())
    cells = page.locator("#asr td")
    texts = [cells.nth(i).inner_text() for i in range(cells.count())]
    assert any(t.startswith("75%") for t in texts)
    assert page.locator("#asr th", has_text=SCRIPT).count() == 1  # shown as text
    colour = page.locator("#asr td.heat-4").first.evaluate(
        "e => getComputedStyle(e).backgroundColor"
    )
    assert colour == "rgb(142, 21, 25)"  # the page's policy let the heat map's styles in
    assert page.evaluate("window.__pwned") is None
    assert [e for e in events if not e.startswith("file://")] == []
    page.close()


def test_a_heat_map_of_many_strategies_scrolls_on_its_own_not_the_page(
    browser: Any, tmp_path: Path
) -> None:
    strategies = [f"strategy_number_{i:02d}" for i in range(20)]
    run = run_of([r for s in strategies for r in many(s, 1, 1, strategy=s)])
    path = tmp_path / "report.html"
    write_report(run, path)
    page = browser.new_page(viewport={"width": 1024, "height": 800})
    page.goto(path.as_uri())
    page_width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert page_width[0] <= page_width[1]  # the report itself does not scroll sideways
    box = page.evaluate(
        "(() => { const e = document.querySelector('#asr .heat-scroll');"
        " return [e.scrollWidth, e.clientWidth]; })()"
    )
    assert box[0] > box[1]  # the map scrolls within its box
    page.close()
