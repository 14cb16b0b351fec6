"""Reviewing proposed cases in headless Chromium: drop one, edit one, write the kept ones."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.watched_page import Watched
from tests.viewer.proposals_support import PROPOSED, reviewing, write_proposed

expect = pytest.importorskip("playwright.sync_api").expect  # the dev extra

pytestmark = pytest.mark.slow


def test_a_review_written_from_the_page(browser: Any, tmp_path: Path) -> None:
    path = write_proposed(tmp_path)
    context = browser.new_context()
    watched = Watched(context.new_page())
    page = watched.page
    page.set_default_timeout(10_000)
    with reviewing(path) as served:
        page.goto(f"{served.url}/#token=wrong")
        assert "token" not in page.url  # taken out of the address once kept
        rows = page.locator("tr.proposal")
        assert rows.count() == 3
        rows.nth(1).locator("input.drop").check()
        rows.nth(0).locator("textarea.behavior").fill("Says 5 to 7 business days.")
        page.click("#write-kept")
        expect(page.locator("#write-status")).to_have_text(re.compile(r"^not written \(403\)"))
        assert path.read_text() == PROPOSED
        page.fill("#token", served.token)
        page.click("#write-kept")
        expect(page.locator("#write-status")).to_have_text(
            f"wrote 2 kept cases to {path} (1 dropped)"
        )
        assert all(url.startswith(served.url) for url in watched.requests), watched.requests
    cases = yaml.safe_load(path.read_text())["test_cases"]
    assert [case["id"] for case in cases] == ["refund-time", "span-00f067aa0ba902b7"]
    assert cases[0]["expected_behavior"] == "Says 5 to 7 business days."
    assert cases[0]["checks"] == [{"type": "contains", "value": "5 business days"}]  # unedited
    assert watched.dialogs == []
    # The one error is the refused write's answer, which the browser logs; no script failed.
    assert [error for error in watched.errors if "403" not in error] == [], watched.errors
    context.close()
