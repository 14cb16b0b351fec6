"""Ctrl+Enter sends the form being typed in: in "save as case" it saves the case."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.store.samples import LOCAL
from tests.viewer.review_support import RUN, Served, serving_project

expect = pytest.importorskip("playwright.sync_api").expect  # the dev extra

pytestmark = pytest.mark.slow  # Chromium and a real uvicorn server


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving_project(tmp_path / "project") as served:
        yield served


def test_ctrl_enter_in_save_as_case_saves_the_case(served: Served, browser: Any) -> None:
    page = browser.new_page()
    page.goto(f"{served.url}/review#token={served.token}")
    query = urlencode({"case": "support/capital", "variant": "", "model": LOCAL, "repeat": 1})
    page.goto(f"{served.url}/runs/{RUN}/result?{query}")
    page.fill("#case-id", "capital-keyboard")
    page.fill("#expect", "Paris")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#save-status")).to_have_text(re.compile("^saved capital-keyboard"))
    assert page.locator("#review-status").inner_text() == ""  # no review was sent
    assert served.store.reviews(RUN) == []
    page.close()
