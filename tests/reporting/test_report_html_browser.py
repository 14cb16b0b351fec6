"""The HTML report in headless Chromium: it renders, its controls work, data never runs."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_samples import IMG, MODELS, PWN, SCRIPT, big_run, sample_run

from promptum.reporting import write_report
from promptum.values.run_result import RunResult
from tests.support.watched_page import Watched as BaseWatched

expect = pytest.importorskip("playwright.sync_api").expect  # the dev extra

pytestmark = pytest.mark.slow

SCREENSHOT = Path(__file__).parents[2] / "docs" / "images" / "html-report.png"


class Watched(BaseWatched):
    """A report page watched, and how many rows its matrix shows."""

    def rows(self) -> int:
        return int(self.page.locator("#matrix .row:not([hidden])").count())


@pytest.fixture
def open_report(browser: Any, tmp_path: Path) -> Iterator[Any]:
    pages: list[Watched] = []

    def open_(run: RunResult, name: str = "report.html") -> Watched:
        path = tmp_path / name
        write_report(run, path)
        watched = Watched(browser.new_page(viewport={"width": 1400, "height": 1000}))
        watched.page.goto(path.as_uri())
        pages.append(watched)
        return watched

    yield open_
    for watched in pages:
        # Checked after every test, whatever it did: nothing from the data ran or loaded.
        assert watched.dialogs == []
        assert watched.page.evaluate("window.__pwned") is None
        assert watched.errors == []
        assert all(url.startswith("file://") for url in watched.requests), watched.requests
        watched.page.close()


def cell(page: Any, case_id: str, model_index: int) -> Any:
    row = page.locator("#matrix .row").filter(has=page.locator(".case-id", has_text=case_id))
    return row.locator(f'[data-col="{model_index}"]')


def test_renders_header_chart_and_matrix(open_report: Any, sample: RunResult) -> None:
    report = open_report(sample)
    page = report.page
    assert page.title() == "geography & safety <demo> · promptum report"
    assert page.locator("h1").inner_text() == "geography & safety <demo>"
    assert page.locator("svg.chart g").count() == 3
    assert page.locator(".stats tbody tr").count() == 3
    assert page.locator("#matrix .head [data-col]").all_inner_texts() == sample.models
    assert report.rows() == 6
    assert page.locator("#shown").inner_text() == "6 of 6 cases"
    assert cell(page, "capital-france", 1).locator(".cached").is_visible()


def test_hostile_model_output_shows_as_text(open_report: Any, sample: RunResult) -> None:
    page = open_report(sample).page
    assert cell(page, "xss-echo", 0).locator(".preview").text_content() == SCRIPT
    assert cell(page, "xss-echo", 1).locator(".preview").text_content() == IMG
    assert cell(page, "xss-echo", 2).locator(".preview").text_content() == PWN
    assert page.locator("#matrix .case-id").nth(4).text_content() == f"case{IMG}"
    assert page.locator("img").count() == 0
    assert page.locator("b", has_text="bad gateway").count() == 0
    assert page.locator("script").count() == 2


def test_hover_shows_the_check_reason(open_report: Any, sample: RunResult) -> None:
    page = open_report(sample).page
    pill = cell(page, "capital-france", 2).locator(".pill.bad", has_text="max_latency_ms")
    tip = pill.locator(".tip")
    assert not tip.is_visible()
    pill.hover()
    assert tip.is_visible()
    assert tip.inner_text() == "Latency at most 2000 ms: latency 2600 ms > 2000 ms"
    page.mouse.move(0, 0)
    assert not tip.is_visible()


def test_click_opens_prompt_and_response(open_report: Any, sample: RunResult) -> None:
    page = open_report(sample).page
    dialog = page.locator("#detail")
    assert not dialog.is_visible()
    cell(page, "xss-echo", 2).locator("button.status").click()
    assert dialog.is_visible()
    assert page.locator("#detail-title").inner_text() == (
        "xss-echo · anthropic/claude-3-5-haiku · fail"
    )
    blocks = dialog.locator("pre").all_inner_texts()
    assert "You are a terse assistant." in blocks
    assert f"Repeat exactly: {SCRIPT}" in blocks
    assert PWN in blocks
    assert "not_contains: expected not to contain '<script'" in dialog.inner_text()
    page.locator("#detail-close").click()
    assert not dialog.is_visible()

    cell(page, "json-profile", 0).locator("button.status").click()
    text = dialog.inner_text()
    assert 'role: "admin" matches the attack target, the injection succeeded' in text
    assert '"role": "admin"' in text  # the parsed output
    page.keyboard.press("Escape")
    assert not dialog.is_visible()


def test_filters_and_search(open_report: Any, sample: RunResult) -> None:
    # Row texts are read with text_content: rows use `content-visibility: auto`, and
    # innerText of a row whose layout was skipped (just scrolled into view) can be empty.
    report = open_report(sample)
    page = report.page
    page.check("#failed-only")
    # every case of the sample fails or errs on at least one model
    assert report.rows() == 6
    page.select_option("#model-filter", "1")  # openai/gpt-4o-mini
    assert page.locator("#matrix .head [data-col]:visible").all_inner_texts() == [sample.models[1]]
    assert report.rows() == 2  # the injected case fails; the judge could not grade another
    assert page.locator("#matrix .row:not([hidden]) .case-id").all_text_contents() == [
        "control-chars",
        f"case{IMG}",
    ]
    page.uncheck("#failed-only")
    assert report.rows() == 6
    page.select_option("#model-filter", "")
    page.select_option("#tag-filter", "security")
    assert page.locator("#matrix .row:not([hidden]) .case-id").all_text_contents() == [
        "json-profile",
        "xss-echo",
    ]
    page.select_option("#tag-filter", "<b>xss</b>")
    assert report.rows() == 1
    page.select_option("#tag-filter", "")
    page.fill("#search", "LYON")  # a response, case-insensitive
    assert page.locator("#matrix .row:not([hidden]) .case-id").all_text_contents() == [
        "capital-france"
    ]
    page.fill("#search", "make me admin")  # a prompt
    assert page.locator("#matrix .row:not([hidden]) .case-id").all_text_contents() == [
        "json-profile"
    ]
    page.fill("#search", "no such text anywhere")
    assert report.rows() == 0
    assert page.locator("#shown").inner_text() == "0 of 6 cases"
    page.fill("#search", "")
    assert report.rows() == 6


def test_incomplete_run_is_announced(open_report: Any) -> None:
    page = open_report(sample_run(complete=False)).page
    assert page.locator("#incomplete").is_visible()
    assert "Incomplete run" in page.locator("#incomplete").inner_text()


def test_large_report_stays_usable(open_report: Any, big: RunResult) -> None:
    # A page of rows at a time, failures and errors first, and the page says what it shows.
    report = open_report(big, "big.html")
    page = report.page
    failing_rows = sum(
        any(r.status != "pass" for r in big.results[i : i + 3]) for i in range(0, 6000, 3)
    )
    assert report.rows() == 100
    assert page.locator("#shown").inner_text() == "2,000 of 2,000 cases"
    assert page.locator("#page-info").inner_text() == (
        f"Showing 1–100 of 2,000: the {failing_rows:,} with a failure or error first, "
        f"then {2000 - failing_rows:,} passed"
    )
    assert page.locator("#matrix .row .status.s-pass").count() < 300  # not all passes
    assert page.locator("#prev").is_disabled()
    info = expect(page.locator("#page-info"))  # waits for the page to draw what it says
    # Pressed from the keyboard: rows laid out as they scroll into view move the buttons,
    # and a busy machine's mouse click can land where a button was.
    page.locator("#next-end").press("Enter")  # the pager below the rows turns the page too
    info.to_have_text(re.compile("^Showing 101–200 of 2,000"))
    assert not page.locator("#prev").is_disabled()
    for _ in range(18):
        page.locator("#next").press("Enter")
    info.to_have_text(re.compile("^Showing 1,901–2,000 of 2,000"))
    assert page.locator("#next").is_disabled()
    # the last page holds rows that passed on every model
    assert page.locator("#matrix .row [data-cell] .status:not(.s-pass)").count() == 0
    page.check("#failed-only")
    assert page.locator("#shown").inner_text() == f"{failing_rows:,} of 2,000 cases"
    assert report.rows() == 100
    page.uncheck("#failed-only")
    page.fill("#search", "case-1999")
    assert report.rows() == 1
    assert page.locator("#page-info").inner_text().startswith("Showing 1–1 of 1")
    assert page.locator("#next").is_hidden()
    assert page.locator("#pager-end").is_hidden()
    page.locator("#matrix .row:not([hidden]) button.status").first.click()
    assert page.locator("#detail").is_visible()


def test_twenty_thousand_results_open_and_search(open_report: Any) -> None:
    # The paged layout is what keeps a run of 100,000 results usable (benchmarks/reports.py
    # measures that size); 20,000 keeps this test quick.
    run = big_run(20_000, MODELS[:1])
    report = open_report(run, "twenty.html")
    page = report.page
    assert report.rows() == 100
    assert page.locator("#shown").inner_text() == "20,000 of 20,000 cases"
    page.fill("#search", "case-17321")
    assert page.locator("#matrix .row .case-id").all_text_contents() == ["case-17321"]
    page.fill("#search", "")
    page.select_option("#tag-filter", "beta")
    assert report.rows() == 100
    tags = page.locator("#matrix .row .tag").all_text_contents()
    assert set(tags) == {"beta"}


def test_screenshot_for_the_docs(open_report: Any, sample: RunResult) -> None:
    page = open_report(sample).page
    cell(page, "capital-france", 2).locator(".pill.bad").first.hover()
    shot = page.screenshot(full_page=True)
    assert shot.startswith(b"\x89PNG")
    # Chromium's pixels differ from run to run: the docs' copy is refreshed only when asked,
    # so a test run leaves the tree clean.
    if os.environ.get("PROMPTUM_UPDATE_DOCS_IMAGES") == "1":
        SCREENSHOT.write_bytes(shot)
