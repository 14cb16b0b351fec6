"""The viewer's result and matrix pages in Chromium show an image part's thumbnail, load nothing."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from urllib.request import urlopen

import pytest

from promptum.store import RunStore
from tests.reporting.part_samples import MODEL, RECEIPT, REMOTE, RUN, parts_run
from tests.store.test_store import record
from tests.support.watched_page import Watched
from tests.viewer.review_support import Served, serving

pytestmark = pytest.mark.slow  # a real uvicorn server on loopback


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, parts_run(tmp_path / "project"))
    with serving(store, tmp_path) as served:
        yield served


def _result_url(served: Served) -> str:
    query = urlencode({"case": "receipt-001", "variant": "", "model": MODEL, "repeat": 1})
    return f"{served.url}/runs/{RUN}/result?{query}"


def test_the_result_page_allows_data_images_only(served: Served) -> None:
    with urlopen(_result_url(served), timeout=10) as response:
        policy = response.headers["Content-Security-Policy"]
        page = response.read().decode()
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["img-src"] == "data:"
    assert page.count('<img class="thumb" src="data:image/png;base64,') == 1
    assert REMOTE in page
    assert f'src="{REMOTE}' not in page


def test_the_result_page_shows_the_receipt_thumbnail(browser: Any, served: Served) -> None:
    watched = Watched(browser.new_page())
    page = watched.page
    page.goto(_result_url(served))

    thumbnail = page.locator("#query img.thumb")
    assert thumbnail.count() == 1
    assert thumbnail.get_attribute("src").startswith("data:image/png;base64,")
    assert page.evaluate("document.querySelector('#query img.thumb').naturalWidth") > 0
    assert 0 < thumbnail.bounding_box()["width"] <= 200
    names = page.locator("#query .part-name").all_inner_texts()
    assert [name.split(" ", 1)[0] for name in names] == ["image", "image", "document", "image"]
    assert "KB shown inline" in names[1]
    assert names[3] == f"image {REMOTE} · image/jpeg · an image given by URL is not loaded"
    assert watched.errors == []
    assert all(url.startswith((served.url, "data:")) for url in watched.requests), watched.requests
    page.close()


def test_the_matrix_api_sends_the_receipt_as_the_only_image(served: Served) -> None:
    with urlopen(f"{served.url}/api/runs/{RUN}/matrix", timeout=10) as response:
        (row,) = json.load(response)["rows"]
    kinds = [(part["kind"], bool(part["src"])) for part in row["parts"]]
    assert kinds == [("image", True), ("image", False), ("document", False), ("image", False)]
    prefix = "data:image/png;base64,"
    assert row["parts"][0]["src"].startswith(prefix)
    assert base64.b64decode(row["parts"][0]["src"][len(prefix) :]) == RECEIPT.read_bytes()
    assert row["parts"][3]["name"] == REMOTE


def test_the_matrix_shows_a_small_receipt_thumbnail(browser: Any, served: Served) -> None:
    watched = Watched(browser.new_page())
    page = watched.page
    page.goto(f"{served.url}/runs/{RUN}/matrix")

    thumbnail = page.locator("#grid-body tr.mrow td.case img.mthumb")
    thumbnail.wait_for()
    assert thumbnail.count() == 1
    assert thumbnail.get_attribute("src").startswith("data:image/png;base64,")
    assert page.evaluate("document.querySelector('img.mthumb').naturalWidth") > 64
    assert 0 < thumbnail.bounding_box()["width"] <= 64  # scaled down to fit the case column
    names = page.locator("#grid-body td.case .part-name").all_inner_texts()
    assert [name.split(" ", 1)[0] for name in names] == ["image", "document", "image"]
    assert names[2] == f"image {REMOTE}"
    assert watched.errors == []
    assert all(url.startswith((served.url, "data:")) for url in watched.requests), watched.requests
    page.close()
