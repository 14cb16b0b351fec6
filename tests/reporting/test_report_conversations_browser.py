"""A conversation in the HTML report, in headless Chromium: the transcript turn by turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptum.reporting import write_report
from tests.reporting.conversation_samples import IMG, PWN, SCRIPT, mixed_run

pytestmark = pytest.mark.slow


@pytest.fixture
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    path = tmp_path / "report.html"
    write_report(mixed_run(), path)
    opened = browser.new_page(viewport={"width": 1400, "height": 1000})
    dialogs: list[str] = []
    errors: list[str] = []
    requests: list[str] = []
    opened.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("request", lambda request: requests.append(request.url))
    opened.goto(path.as_uri())
    yield opened
    # Nothing from the data ran or loaded, whatever the test did.
    assert dialogs == []
    assert opened.evaluate("window.__pwned") is None
    assert errors == []
    assert all(url.startswith("file://") for url in requests), requests
    opened.close()


def _row(page: Any, case_id: str) -> Any:
    return page.locator("#matrix .row").filter(has=page.locator(".case-id", has_text=case_id))


def _open(page: Any, case_id: str) -> Any:
    _row(page, case_id).locator("button.status").click()
    return page.locator("#detail-body")


def test_the_row_names_the_first_failing_turn(page: Any) -> None:
    assert _row(page, "remembers-the-name").locator(".failing-turn").inner_text() == (
        "turn 3 failed first"
    )
    assert _row(page, "leaks-code").locator(".failing-turn").inner_text() == (
        "conversation failed first"
    )
    assert _row(page, "polite").locator(".failing-turn").count() == 0
    assert _row(page, "single").locator(".failing-turn").count() == 0


def test_the_detail_shows_the_transcript_turn_by_turn_then_the_conversation_grades(
    page: Any,
) -> None:
    detail = _open(page, "remembers-the-name")
    turns = detail.locator("details.turn")
    assert turns.count() == 4
    third = turns.nth(2)
    assert "failing" in (third.get_attribute("class") or "")
    assert third.locator("summary .failing-turn").inner_text() == "failing turn"
    assert detail.locator("details.turn.failing").count() == 1
    assert third.locator("summary .pill.bad").inner_text().startswith("contains")
    assert third.locator("pre").all_inner_texts() == [
        "What is my name?",
        "I do not know your name.",
    ]
    assert turns.nth(1).locator("summary .pill.ok").count() == 1
    assert turns.nth(0).locator("summary .pill").count() == 0
    assert third.locator("summary .figs").inner_text() == "100 ms · 10→5 tok · $0.0001"
    # Collapsible: a click on its summary folds a turn away.
    assert third.locator("pre").first.is_visible()
    third.locator("summary .turn-no").click()
    assert not third.locator("pre").first.is_visible()
    headings = detail.locator("h3").all_inner_texts()
    assert headings.index("Transcript") < headings.index("Conversation checks")
    assert headings[0] == "Why it did not pass"
    assert "Opening messages" in headings
    assert "Response" not in headings
    # The conversation's own grade, after the transcript.
    grades = detail.locator("h3:text-is('Conversation checks') + .pills .pill")
    assert grades.all_inner_texts()[0].startswith("not_contains")


def test_a_turn_whose_call_failed_shows_its_error(page: Any) -> None:
    detail = _open(page, "target-fails")
    second = detail.locator("details.turn").nth(1)
    assert "failing" in (second.get_attribute("class") or "")
    assert second.locator("pre.err").inner_text() == "HTTP 500 from target"


def test_hostile_turns_show_as_text(page: Any) -> None:
    detail = _open(page, "hostile")
    texts = detail.locator("details.turn pre").all_inner_texts()
    assert texts == [SCRIPT, IMG, PWN, PWN]
    assert detail.locator("img").count() == 0
    page.locator("#detail-close").click()
    page.locator("#search").fill("onerror=alert")  # the search sees the turns too
    assert page.locator("#shown").inner_text() == "1 of 6 cases"
