"""The viewer over a review row it cannot read: every page answers, and says what it skipped."""

from __future__ import annotations

import html
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from promptum.store import RunStore
from promptum.viewer import create_app
from tests.store.old_reviews import RUN, old_store, review_row
from tests.store.samples import LOCAL, SCRIPT
from tests.viewer.serving import served_app

NOTE = "1 review skipped: created_at 'xyz' is not a date (reviews row 2"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    path = tmp_path_factory.mktemp("skipped") / "runs.sqlite"
    store = RunStore(old_store(path, review_row(created_at="xyz")))
    with served_app(create_app(store)) as port:
        yield f"http://127.0.0.1:{port}"


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _text(page: str) -> str:
    return " ".join(html.unescape(page).split())


def test_the_calibration_page_counts_the_skipped_review(url: str) -> None:
    status, page = _get(f"{url}/calibrate")
    assert status == 200, page
    assert NOTE in _text(page)
    assert 'id="reviews-skipped"' in page
    assert 'id="calibration"' in page  # bob's review is still calibrated


def test_the_run_page_answers_and_says_so(url: str) -> None:
    status, page = _get(f"{url}/runs/{RUN}")
    assert status == 200, page
    assert NOTE in _text(page)


def test_the_result_page_answers_with_the_readable_reviews(url: str) -> None:
    query = urlencode({"case": "capital-1", "model": LOCAL, "repeat": 1})
    status, page = _get(f"{url}/runs/{RUN}/result?{query}")
    assert status == 200, page
    assert NOTE in _text(page)
    assert '<td class="review-label">bad</td>' in page  # bob's


def test_pages_without_skipped_reviews_say_nothing_of_them(tmp_path: Path) -> None:
    store = RunStore(old_store(tmp_path / "runs.sqlite"))
    with served_app(create_app(store)) as port:
        for path in ("/calibrate", f"/runs/{RUN}"):
            status, page = _get(f"http://127.0.0.1:{port}{path}")
            assert status == 200
            assert 'id="reviews-skipped"' not in page


def test_a_hostile_value_is_shown_as_text(tmp_path: Path) -> None:
    store = RunStore(old_store(tmp_path / "runs.sqlite", review_row(created_at=SCRIPT)))
    with served_app(create_app(store)) as port:
        for path in ("/calibrate", f"/runs/{RUN}"):
            status, page = _get(f"http://127.0.0.1:{port}{path}")
            assert status == 200
            assert SCRIPT not in page
            assert f"created_at {SCRIPT!r} is not a date" in _text(page)
