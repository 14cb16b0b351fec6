"""The matrix and trends pages in headless Chromium against a real uvicorn server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from promptum.store import RunStore
from tests.store.samples import GPT, LOCAL
from tests.support.watched_page import Watched
from tests.viewer.matrix_samples import HOSTILE, IMG, SCRIPT, fill, serving

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = RunStore(tmp_path_factory.mktemp("matrix-browser") / "runs.sqlite")
    fill(store)
    with serving(store) as url:
        yield url


@pytest.fixture
def watched(browser: Any, url: str) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(10_000)
    watched = Watched(page)
    yield watched
    # Whatever the test did: nothing from the data ran, nothing reached another host.
    assert watched.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert watched.errors == []
    assert watched.requests
    assert all(r.startswith(url + "/") for r in watched.requests)
    context.close()


def shown(page: Any, text: str) -> None:
    page.wait_for_function(
        "t => document.getElementById('shown').textContent === t", arg=text, timeout=10_000
    )


def case_keys(page: Any) -> list[str]:
    return list(page.locator("#grid-body tr.mrow .case-id").all_text_contents())


def test_matrix_columns_cells_pills_and_reasons(watched: Watched, url: str) -> None:
    page = watched.page
    page.goto(url + "/")
    page.locator("#runs tr", has_text="geo-base").locator("a.matrix-link").click()
    page.wait_for_url("**/runs/geo-base/matrix")
    shown(page, "1–7 of 7 cases")
    heads = page.locator("#grid-head th").all_inner_texts()
    assert heads == ["Case", f"{LOCAL} · terse", GPT]
    assert case_keys(page)[:2] == ["geo/capital-0", "geo/capital-1"]
    row = page.locator("#grid-body tr.mrow").nth(1)  # capital-1 fails on local, must pass
    assert "must-pass" in row.locator("td.case").inner_text()
    local = row.locator("td").nth(1)
    assert local.locator("a.status").all_text_contents() == ["fail"] * 3
    link = local.locator("a.status").nth(2).get_attribute("href")
    assert link == (
        "/runs/geo-base/result?case=geo%2Fcapital-1&variant=terse&model=local%2Fsmollm2&repeat=3"
    )
    pill = local.locator(".pill.bad").first
    assert pill.inner_text().startswith("contains")
    tip = pill.locator(".tip")
    assert not tip.is_visible()
    pill.focus()  # the reason shows on focus, for the keyboard, as on hover
    assert tip.is_visible()
    assert "expected to contain 'Paris'" in tip.inner_text()


def test_filters_search_and_paging(watched: Watched, url: str) -> None:
    page = watched.page
    page.goto(url + "/runs/geo-base/matrix")
    shown(page, "1–7 of 7 cases")
    page.check("#f-failed")
    shown(page, "1–4 of 4 cases")
    page.check("#f-errored")
    shown(page, "1–4 of 4 cases")
    page.uncheck("#f-failed")
    shown(page, "1–1 of 1 cases")
    assert case_keys(page) == ["geo/capital-5"]
    page.uncheck("#f-errored")
    page.check("#f-flaky")
    shown(page, "1–2 of 2 cases")
    page.uncheck("#f-flaky")
    page.check("#f-must-pass")
    shown(page, "1–1 of 1 cases")
    page.uncheck("#f-must-pass")
    page.select_option("#f-tag", "math")
    shown(page, "1–1 of 1 cases")
    page.select_option("#f-tag", "")
    page.select_option("#f-suite", "geo")
    shown(page, "1–6 of 6 cases")
    page.fill("#q", "upstream OVERLOADED")
    shown(page, "1–1 of 1 cases")
    page.fill("#q", "no answer says this")
    shown(page, "0 cases match")

    page.goto(url + "/runs/many/matrix")
    shown(page, "1–50 of 120 cases")
    assert page.locator("#prev").is_disabled()
    page.click("#next")
    shown(page, "51–100 of 120 cases")
    assert case_keys(page)[0] == "case-0050"
    page.click("#next")
    shown(page, "101–120 of 120 cases")
    assert page.locator("#next").is_disabled()
    page.check("#f-failed")  # a filter starts again from the first page
    shown(page, "1–30 of 30 cases")


def test_changed_since_and_two_runs_side_by_side(watched: Watched, url: str) -> None:
    page = watched.page
    page.goto(url + "/runs/geo-next/matrix")
    page.select_option("#f-changed", "geo-base")
    shown(page, "1–3 of 3 cases")
    assert case_keys(page) == ["geo/capital-0", "geo/capital-3", f"geo/{HOSTILE}"]
    page.select_option("#beside", "geo-base")
    page.click("#beside-form button")
    page.wait_for_url("**/runs/geo-next/matrix?b=geo-base")
    shown(page, "1–8 of 8 cases")
    assert page.locator("#grid-head th").count() == 5
    first = page.locator("#grid-body tr.mrow").first
    statuses = [first.locator("td").nth(i).locator("a.status").first.text_content() for i in (1, 3)]
    assert statuses == ["fail", "pass"]  # local in this run, and in the other


def test_keyboard_navigation_and_word_diff(watched: Watched, url: str) -> None:
    page = watched.page
    page.goto(url + "/runs/geo-next/matrix?b=geo-base")
    shown(page, "1–8 of 8 cases")
    current = "#grid-body tr.mrow.current .case-id"
    assert page.locator(current).inner_text() == "geo/capital-0"
    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    assert page.locator(current).inner_text() == "geo/capital-2"
    page.keyboard.press("k")
    assert page.locator(current).inner_text() == "geo/capital-1"
    page.keyboard.press("ArrowUp")
    answer = page.locator("#grid-body tr.mrow.current .answer").first
    assert answer.evaluate("e => getComputedStyle(e).maxHeight") != "none"  # cut to 3 lines
    page.keyboard.press("Enter")  # opens the row: full answers and the diff
    assert page.locator("#grid-body tr.mrow.open").count() == 1
    assert answer.evaluate("e => getComputedStyle(e).maxHeight") == "none"
    assert page.locator("#diff-a").input_value() == "2"  # local @ geo-base, before
    assert page.locator("#diff-b").input_value() == "0"  # local @ geo-next, after
    page.click("#diff-go")
    page.wait_for_selector("#diff del")
    assert page.locator("#diff del").all_text_contents() == ["The capital of France", "Paris."]
    assert page.locator("#diff ins").all_text_contents() == ["It", f"Lyon. {SCRIPT}"]
    page.select_option("#diff-a", "0")  # two columns of one run: local, then gpt @ geo-next
    page.select_option("#diff-b", "1")
    page.fill("#diff-repeat", "3")
    page.click("#diff-go")
    page.wait_for_function("() => document.querySelector('#diff del')?.textContent === 'It'")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("r3")
    page.keyboard.press("Escape")
    shown(page, "1–6 of 6 cases")  # neither the math case nor the hostile one has a repeat 3
    page.keyboard.press("Enter")
    assert page.locator("#grid-body tr.mrow.open").count() == 1


def test_hostile_data_does_not_run(watched: Watched, url: str) -> None:
    page = watched.page
    page.goto(url + "/runs/geo-next/matrix?b=geo-base")
    page.select_option("#f-tag", IMG)
    shown(page, "1–1 of 1 cases")
    row = page.locator("#grid-body tr.mrow").first
    assert row.locator(".case-id").inner_text() == f"geo/{HOSTILE}"
    assert IMG in row.locator("td.case .tag").first.inner_text()
    assert HOSTILE in row.inner_text()
    for pill in row.locator(".pill").all():
        pill.hover()
        pill.focus()
    page.keyboard.press("Enter")
    page.select_option("#diff-a", "1")  # the only column holding this case
    page.select_option("#diff-b", "1")
    page.click("#diff-go")
    page.wait_for_function("() => document.getElementById('diff').textContent !== ''")
    assert page.locator("#diff").text_content() == f"Lyon {HOSTILE}"
    page.goto(url + "/trends")
    assert page.locator("svg").count() >= 12


def test_trends_charts_and_marks(watched: Watched, url: str) -> None:
    page = watched.page
    page.goto(url + "/")
    page.click("#trends-link")
    page.wait_for_url("**/trends")
    suites = page.locator(".trend-suite h2").all_inner_texts()
    assert suites == ["many", "geo", "trend"]  # oldest run first
    page.select_option("#trend-suite", "trend")
    page.click("#trend-filters button")
    page.wait_for_url("**/trends?suite=trend&model=")
    assert page.locator("figure.trend").count() == 4
    assert page.locator("figure.trend").first.locator("circle.point").count() == 6
    mark = page.locator("path.mark-regression")
    assert mark.count() == 1
    assert "regression against trend-1" in (mark.locator("title").text_content() or "")
