"""The viewer's pages in headless Chromium: every page reaches calibration, headers stay whole."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest

from promptum.values.reviews import Review
from tests.store.samples import LOCAL
from tests.viewer.review_support import RUN, Served, serving_project

pytestmark = pytest.mark.slow  # Chromium and a real uvicorn server

RESULT = f"/runs/{RUN}/result?" + urlencode({"case": "support/capital", "model": LOCAL})
PAGES = ["/", "/trends", f"/runs/{RUN}/matrix", "/calibrate", RESULT, "/review"]

# The header texts whose lines a browser broke inside a word: a line ends before a character
# that is not white space, after one that is neither white space, '-' nor '/'.
_WORDS_CUT = """() => {
  const cut = [];
  for (const th of document.querySelectorAll("th")) {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    let node, top = null, before = "";
    while ((node = walker.nextNode())) {
      for (let i = 0; i < node.data.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box) { continue; }
        const char = node.data[i];
        if (top !== null && Math.abs(box.top - top) > 2 && !/\\s/.test(char)
            && !/[\\s\\-\\/]/.test(before)) {
          cut.push(th.textContent.trim());
        }
        top = box.top;
        before = char;
      }
    }
  }
  return cut;
}"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving_project(tmp_path_factory.mktemp("layout") / "project") as served:
        # One review, so the calibration page has its table (with the confusion matrix).
        review = Review(RUN, "support/capital", None, LOCAL, 1, verdict="bad", reviewer="ada")
        served.store.add_review(review)
        yield served


@pytest.mark.parametrize("path", PAGES)
def test_every_workbench_page_links_to_the_calibration_page(
    served: Served, browser: Any, path: str
) -> None:
    page = browser.new_page()
    page.goto(served.url + path)
    link = page.locator("a[href='/calibrate']").first
    link.click()
    page.wait_for_url("**/calibrate")
    assert page.locator("h1").inner_text() == "Judge calibration"
    assert page.locator("#calibration > tbody > tr").count() == 1
    page.close()


@pytest.mark.parametrize("width", [1280, 600])
def test_table_headers_wrap_between_words_only(served: Served, browser: Any, width: int) -> None:
    page = browser.new_page(viewport={"width": width, "height": 800})
    cut = {}
    for path in PAGES:
        page.goto(served.url + path)
        page.wait_for_load_state("networkidle")  # the matrix draws its table from the API
        cut[path] = page.evaluate(_WORDS_CUT)
    assert cut == {path: [] for path in PAGES}
    page.close()


def test_the_header_check_finds_a_word_cut_in_two(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(served.url + "/calibrate")
    assert page.evaluate(_WORDS_CUT) == []
    # As the stylesheet had it: headers broken anywhere, in columns too narrow for a word.
    page.evaluate(
        """() => {
          const table = document.getElementById("calibration");
          table.style.tableLayout = "fixed";
          table.style.width = "420px";
          table.querySelectorAll("th").forEach(th => { th.style.overflowWrap = "anywhere"; });
        }"""
    )
    assert "Agreement" in page.evaluate(_WORDS_CUT)
    page.close()
