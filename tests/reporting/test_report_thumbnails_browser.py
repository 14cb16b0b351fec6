"""The HTML report in headless Chromium shows an image part as a thumbnail and loads nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptum.reporting import write_report
from tests.reporting.part_samples import REMOTE, parts_run
from tests.support.watched_page import Watched

pytestmark = pytest.mark.slow


def test_the_detail_shows_the_receipt_thumbnail_and_names_the_other_parts(
    browser: Any, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    write_report(parts_run(tmp_path / "project"), report)
    watched = Watched(browser.new_page(viewport={"width": 1400, "height": 1000}))
    page = watched.page
    page.goto(report.as_uri())

    page.locator("#matrix .row button.status").first.click()
    thumbnail = page.locator("#detail img.thumb")
    thumbnail.wait_for()

    assert thumbnail.count() == 1  # the large image and the URL are named, not shown
    assert thumbnail.get_attribute("src").startswith("data:image/png;base64,")
    # Decoded and laid out: the browser drew it, scaled down to the thumbnail's cap.
    assert page.evaluate("document.querySelector('#detail img.thumb').naturalWidth") > 0
    assert 0 < thumbnail.bounding_box()["width"] <= 200
    names = page.locator("#detail .part-name").all_inner_texts()
    assert len(names) == 4
    assert names[1].startswith("image ")
    assert "scan.png · image/png · sha256 " in names[1]
    assert "KB shown inline" in names[1]
    assert names[2].startswith("document ")
    assert "terms.pdf · application/pdf" in names[2]
    assert names[3] == f"image {REMOTE} · image/jpeg · an image given by URL is not loaded"
    page.locator("#detail").screenshot(path=str(tmp_path / "thumbnail.png"))
    assert (tmp_path / "thumbnail.png").stat().st_size > 0
    assert watched.errors == []
    assert all(url.startswith(("file://", "data:")) for url in watched.requests), watched.requests
    assert not any(url.startswith("https://") for url in watched.requests)
    page.close()
