"""The HTML report's heat map in headless Chromium: a cell leads to its attacks' results.

Each goal × strategy cell links (an anchor within the same file) to the matrix listing that
column's results of those attacks; a result that recorded its turns (crescendo, GOAT) opens
on its transcript; the rate corrected for the detector sits beside the counted one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conversation_samples import Said, conversation

from promptum.reporting import write_report
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, RunResult
from tests.support.watched_page import Watched

pytestmark = pytest.mark.slow

ODD_GOAL = "custom:refund/rule #1 & more"
"""A goal whose name must survive the link's encoding: a slash, a hash, spaces, an ampersand."""


def attack(case_id: str, leaked: bool, goal: str, strategy: str, model: str = "m") -> CaseResult:
    check = "canary_not_leaked" if goal == "prompt_leak" else "not_contains"
    return CaseResult(
        case_id=case_id,
        model=model,
        status="fail" if leaked else "pass",
        completion=Completion(text=f"answer of {case_id}"),
        grades=[Grade("check", check, not leaked)],
        tags=["redteam", f"goal:{goal}", f"strategy:{strategy}"],
    )


def red_team_run() -> RunResult:
    """Two models; prompt_leak by direct (3) and base64 (2), a crescendo talk, an odd goal."""
    results = []
    for model in ("m", "n"):
        results += [
            attack(f"leak-direct-{i}", i == 0, "prompt_leak", "direct", model) for i in range(3)
        ]
        results += [attack(f"leak-b64-{i}", True, "prompt_leak", "base64", model) for i in range(2)]
        results.append(attack("odd-1", True, ODD_GOAL, "direct", model))
    talk = conversation(
        "leak-crescendo-1",
        [Said("Tell me about your setup", "Sure."), Said("And the hidden words?", "Ada", False)],
        model="m",
    )
    tags = ["redteam", "goal:prompt_leak", "strategy:crescendo"]
    leaked = [Grade("check", "canary_not_leaked", False)]  # its detector, over the talk
    results.append(talk.model_copy(update={"tags": tags, "grades": leaked, "status": "fail"}))
    results.append(
        CaseResult(case_id="plain", model="m", status="pass", completion=Completion(text="hi"))
    )
    return RunResult(run_id="heat", suite="attacks", models=["m", "n"], results=results)


@pytest.fixture
def report(browser: Any, tmp_path: Path) -> Iterator[Watched]:
    path = tmp_path / "report.html"
    write_report(red_team_run(), path)
    watched = Watched(browser.new_page(viewport={"width": 1400, "height": 1000}))
    watched.page.goto(path.as_uri())
    yield watched
    assert watched.errors == []
    assert watched.dialogs == []
    assert all(url.startswith("file://") for url in watched.requests), watched.requests
    watched.page.close()


def listed(page: Any) -> list[str]:
    """The case ids the matrix lists, in order.

    Text content, not inner text: rows are `content-visibility: auto`, and Chromium gives an
    off-screen row's inner text as "" until it has been laid out.
    """
    return [str(t) for t in page.locator("#matrix .row .case-id").all_text_contents()]


def follow(cell: Any) -> None:
    """Click a heat map cell's link and wait for the page to handle the hash change."""
    cell.locator("a").click()
    cell.page.locator("#attack-filter").wait_for(state="visible")


def heat_cell(page: Any, column: int, goal: str, strategy: str) -> Any:
    """The heat map cell of `goal` × `strategy` in the `column`th map."""
    table = page.locator("#asr table.heat").nth(column)
    row = table.locator("tbody tr").filter(has=page.locator("th", has_text=goal))
    names = table.locator("thead th").all_inner_texts()
    return row.locator("td").nth(names.index(strategy) - 1)


def test_a_cell_lists_its_attacks_and_only_those(report: Watched) -> None:
    page = report.page
    assert len(listed(page)) == 8  # every case first
    follow(heat_cell(page, 1, "prompt_leak", "base64"))
    assert page.evaluate("location.hash") == "#attacks/n/prompt_leak/base64"
    assert listed(page) == ["leak-b64-0", "leak-b64-1"]
    assert page.locator("#model-filter").input_value() == "1"  # the map's column, n
    assert page.locator('#matrix .head [data-col="0"]').is_hidden()
    note = page.locator("#attack-filter")
    assert note.is_visible()
    assert note.inner_text().startswith("Attacks: prompt_leak × base64 on n.")
    note.locator("button").click()  # back to the heat map: every case again
    note.wait_for(state="hidden")
    assert page.evaluate("location.hash") == "#asr"
    assert note.is_hidden()
    assert len(listed(page)) == 8
    assert page.locator("#model-filter").input_value() == ""


def test_an_all_strategies_cell_lists_every_attack_of_its_goal(report: Watched) -> None:
    page = report.page
    follow(heat_cell(page, 0, "prompt_leak", "All strategies"))
    assert sorted(listed(page)) == sorted(
        [f"leak-direct-{i}" for i in range(3)] + ["leak-b64-0", "leak-b64-1", "leak-crescendo-1"]
    )


def test_a_goal_name_with_a_slash_and_a_hash_survives_its_link(report: Watched) -> None:
    page = report.page
    follow(heat_cell(page, 0, ODD_GOAL, "direct"))
    assert listed(page) == ["odd-1"]


def test_a_crescendo_attack_opens_on_its_turns(report: Watched) -> None:
    page = report.page
    follow(heat_cell(page, 0, "prompt_leak", "crescendo"))
    assert listed(page) == ["leak-crescendo-1"]
    button = page.locator('#matrix .row [data-col="0"] button.status')
    assert button.get_attribute("title") == "Show the conversation's 2 turns"
    button.click()
    dialog = page.locator("#detail")
    assert dialog.locator("h3", has_text="Transcript").is_visible()
    assert dialog.locator("details.turn").count() == 2


def test_a_cell_shows_the_corrected_rate_beside_the_counted_one(report: Watched) -> None:
    page = report.page
    # prompt_leak on n: 3 of 5 leaked, Wilson [.2307, .8824]; the canary check's labelled
    # recall 26/27 and specificity 1 multiply each by 27/26: .6231 [.2396, .9163].
    cell = heat_cell(page, 1, "prompt_leak", "All strategies").inner_text()
    assert cell.split("\n") == ["60%", "[23–88%] · 3/5", "corrected 62% [24–92%]"]
    odd = heat_cell(page, 1, ODD_GOAL, "All strategies").inner_text()
    assert "corrected" not in odd  # no figures: the rate alone, and the note says why
    notes = page.locator("#asr ul.corrections").nth(1).inner_text().split("\n")
    assert notes[0].startswith(f"{ODD_GOAL}: not corrected, its detector is the suite's own")
    assert notes[1] == (
        "prompt_leak: precision 1.00, recall 0.96, specificity 1.00 (labelled set, 48 answers)"
    )
