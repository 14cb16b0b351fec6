"""The review panel in headless Chromium says what each save did, and what a score is."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.store.samples import LOCAL
from tests.support.watched_page import Watched
from tests.viewer.review_support import RUN, Served, serving_project

expect = pytest.importorskip("playwright.sync_api").expect  # the dev extra

pytestmark = pytest.mark.slow  # Chromium and a real uvicorn server

RESULT = f"/runs/{RUN}/result?" + urlencode({"case": "support/capital", "model": LOCAL})


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving_project(tmp_path / "project") as served:
        yield served


@pytest.fixture
def page(browser: Any, served: Served) -> Iterator[Any]:
    context = browser.new_context()
    watched = Watched(context.new_page())
    watched.page.set_default_timeout(10_000)
    watched.page.goto(f"{served.url}/review#token={served.token}")
    watched.page.wait_for_selector("#token-kept", state="visible")
    watched.page.goto(served.url + RESULT)
    yield watched.page
    # A refused write is logged by the browser as a failed load; a script error never is.
    assert [e for e in watched.errors if not e.startswith("Failed to load resource")] == []
    context.close()


def _line_of(path: Path, text: str) -> int:
    return path.read_text().splitlines().index(text) + 1


def test_the_score_is_said_in_plain_words_apart_from_the_verdict(page: Any) -> None:
    assert page.locator("label[for=verdict-bad], label:has(#verdict-bad)").inner_text().strip() == (
        "bad: it should fail"
    )
    score = page.locator("label:has(#score)").inner_text()
    assert "bad" not in score
    assert "a number from 0 (worst) to 1 (best)" in score


def test_a_saved_review_says_so_after_the_page_shows_it(page: Any, served: Served) -> None:
    page.keyboard.press("b")
    page.fill("#score", "0.33")  # not a multiple of a step: a score is any number in 0-1
    with page.expect_navigation():
        page.click("#send-review")
    expect(page.locator("#review-status")).to_have_text("saved your review: bad, score 0.33")
    assert page.locator("#reviews .review-label").inner_text() == "bad, score 0.33"
    [review] = served.store.reviews(RUN)
    assert review.score == 0.33
    page.reload()
    expect(page.locator("#review-status")).to_have_text("")  # said once, not on every visit


@pytest.mark.parametrize("score", ["1.5", "-0.2"])
def test_a_score_out_of_range_is_said_and_nothing_sent(
    page: Any, served: Served, score: str
) -> None:
    page.keyboard.press("g")
    page.fill("#score", score)
    page.click("#send-review")
    expect(page.locator("#review-status")).to_have_text(
        "not saved: the score must be a number from 0 to 1, or left empty"
    )
    assert served.store.reviews(RUN) == []


def test_a_refused_review_says_why(page: Any, served: Served) -> None:
    page.select_option("#override", "fail")  # an override without its reason
    page.click("#send-review")
    expect(page.locator("#review-status")).to_have_text(
        re.compile(r"^not saved \(422\): an override needs a reason")
    )
    assert served.store.reviews(RUN) == []


def test_save_as_case_says_the_file_and_line_it_wrote(page: Any, served: Served) -> None:
    suite = Path(served.store.path).parent / "suites" / "support.yaml"
    page.fill("#case-id", "capital-no-lyon")
    page.select_option("#kind", "not_contains")
    page.fill("#expect", "Lyon")
    page.click("#save-case")
    expect(page.locator("#save-status")).to_have_text(re.compile("^saved capital-no-lyon to "))
    line = _line_of(suite, "  - id: capital-no-lyon")
    assert page.locator("#save-status").inner_text() == (
        f"saved capital-no-lyon to suites/support.yaml:{line}"
    )
    page.click("#save-case")  # the page holds the file's old digest
    expect(page.locator("#save-status")).to_have_text(
        re.compile(r"^not saved \(409\): support.yaml changed since the page read it")
    )


def test_save_as_case_into_a_new_file_says_where(page: Any, served: Served) -> None:
    page.fill("#expect", "Paris")
    page.fill("#new-file", "reviewed.yaml")
    page.click("#save-case")
    new = Path(served.store.path).parent / "suites" / "reviewed.yaml"
    expect(page.locator("#save-status")).to_have_text(re.compile("^saved capital-reviewed to "))
    line = _line_of(new, "  - id: capital-reviewed")
    assert page.locator("#save-status").inner_text() == (
        f"saved capital-reviewed to suites/reviewed.yaml:{line}"
    )
