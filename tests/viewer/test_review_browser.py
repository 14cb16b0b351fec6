"""Reviewing in headless Chromium: the round trip, the keyboard, and a hostile page's attempts."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner

from promptum.cli import main
from tests.reporting.report_samples import IMG, PWN
from tests.store.samples import LOCAL
from tests.support.watched_page import Watched
from tests.viewer.review_support import RUN, Served, serving_project
from tests.viewer.serving import free_port

expect = pytest.importorskip("playwright.sync_api").expect  # the dev extra

pytestmark = pytest.mark.slow


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serving_project(tmp_path / "project") as served:
        yield served


@pytest.fixture
def watched(browser: Any) -> Iterator[Watched]:
    context = browser.new_context()
    watched = Watched(context.new_page())
    watched.page.set_default_timeout(10_000)
    yield watched
    assert watched.dialogs == [], "a script from the data ran"
    assert watched.page.evaluate("window.__pwned") is None
    context.close()


def _result_url(served: Served, case: str = "support/capital", repeat: int = 1) -> str:
    query = urlencode({"case": case, "variant": "", "model": LOCAL, "repeat": repeat})
    return f"{served.url}/runs/{RUN}/result?{query}"


def test_a_review_made_with_the_keyboard_shows_everywhere(
    served: Served, watched: Watched, tmp_path: Path
) -> None:
    page = watched.page
    page.goto(f"{served.url}/review#token={served.token}")
    page.wait_for_selector("#token-kept", state="visible")
    assert "token" not in page.url  # taken out of the address once kept

    page.goto(_result_url(served))
    assert PWN in page.locator("#answer-text").inner_text()  # the answer, shown as text
    assert page.locator("#no-reviews").is_visible()
    assert page.locator("#token-row").is_hidden()  # the kept token is used
    page.keyboard.press("b")
    assert page.locator("#verdict-bad").is_checked()
    page.fill("#score", "0.2")
    page.keyboard.press("Escape")  # leaves the field, so the next key is a shortcut again
    page.keyboard.press("c")
    page.keyboard.type(f"names Lyon {PWN} {IMG}")
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")  # saved, then the page shows it
    row = page.locator("#reviews tbody tr")
    assert row.count() == 1
    assert row.locator(".review-label").inner_text() == "bad, score 0.2"
    assert PWN in row.locator(".review-comment").inner_text()
    assert all(url.startswith(served.url) for url in watched.requests), watched.requests

    [review] = served.store.reviews(RUN)
    assert (review.reviewer, review.verdict, review.score) == ("ada", "bad", 0.2)
    db = str(served.store.path)
    shown = json.loads(CliRunner().invoke(main, ["runs", "show", RUN, "--json", "--db", db]).output)
    assert shown["reviewed"][0]["reviews"][0]["verdict"] == "bad"

    report = tmp_path / "report.html"
    done = CliRunner().invoke(main, ["report", RUN, "-o", str(report), "--db", db])
    assert done.exit_code == 0, done.output
    page.goto(report.as_uri())
    assert "names Lyon" in (page.locator("body").text_content() or "")

    page.goto(f"{served.url}/calibrate")
    cells = page.locator("#calibration tbody > tr").first.locator(":scope > td")
    assert cells.nth(0).inner_text() == LOCAL
    assert cells.nth(1).inner_text() == "judge"
    assert cells.nth(2).inner_text() == "1"
    assert cells.nth(3).inner_text() == "0.0%"  # the judge passed what the reviewer calls bad
    assert "judge: pass" in cells.nth(5).inner_text()


def test_an_override_of_one_criterion_and_a_refusal_shown(served: Served, watched: Watched) -> None:
    page = watched.page
    page.goto(_result_url(served, repeat=2))
    assert page.locator("#token-row").is_visible()  # this browser has no token yet
    page.fill("#token", "not-the-token")
    page.select_option("#criterion", "judge")
    page.select_option("#override", "fail")
    page.fill("#reason", "too short")
    page.click("#send-review")
    expect(page.locator("#review-status")).to_have_text(re.compile(r"^not saved \(403\)"))
    assert served.store.reviews(RUN) == []
    page.fill("#token", served.token)
    with page.expect_navigation():
        page.click("#send-review")
    assert page.locator("#reviews .review-label").inner_text() == "override → fail"
    [review] = served.store.reviews(RUN)
    assert (review.criterion, review.override, review.reason) == ("judge", "fail", "too short")


def test_save_as_case_from_the_page(served: Served, watched: Watched, tmp_path: Path) -> None:
    page = watched.page
    page.goto(f"{served.url}/review#token={served.token}")
    page.goto(_result_url(served))
    page.fill("#case-id", "capital-no-lyon")
    page.select_option("#kind", "not_contains")
    page.fill("#expect", "Lyon")
    page.click("#save-case")
    expect(page.locator("#save-status")).to_have_text(re.compile("^saved"))
    suite = tmp_path / "project" / "suites" / "support.yaml"
    assert "  - id: capital-no-lyon\n" in suite.read_text()
    page.click("#save-case")  # the page still holds the old digest: the file changed since
    expect(page.locator("#save-status")).to_have_text(re.compile(r"^not saved \(409\)"))


def test_the_result_page_of_a_missing_result_says_so(served: Served, watched: Watched) -> None:
    response = watched.page.goto(_result_url(served, case="support/nope"))
    assert response is not None
    assert response.status == 404
    assert "has no result of case 'support/nope'" in watched.page.locator("#error").inner_text()


class _Attacker(http.server.BaseHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_another_origin_cannot_write_even_knowing_the_token(
    served: Served, watched: Watched
) -> None:
    body = json.dumps(
        {"run_id": RUN, "case": "support/capital", "model": LOCAL, "repeat": 1,
         "verdict": "good", "comment": "written by another site"}
    )  # fmt: skip
    _Attacker.page = f"""<!doctype html><html><body>
<form id="form" method="post" action="{served.url}/api/reviews" enctype="text/plain">
<input name='{body[:-1]}, "x": "' value='"}}'></form>
<script>
window.results = {{}};
fetch("{served.url}/api/reviews", {{method: "POST", body: {json.dumps(body)},
  headers: {{"Content-Type": "application/json", "X-Promptum-Token": "{served.token}"}}}})
  .then(r => window.results.json = r.status, e => window.results.json = "blocked: " + e);
fetch("{served.url}/api/reviews", {{method: "POST", mode: "no-cors", body: {json.dumps(body)},
  headers: {{"Content-Type": "text/plain"}}}})
  .then(r => window.results.plain = r.type, e => window.results.plain = "blocked: " + e);
</script></body></html>""".encode()
    port = free_port()
    attacker = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Attacker)
    thread = threading.Thread(target=attacker.serve_forever, daemon=True)
    thread.start()
    try:
        page = watched.page
        page.goto(f"http://localhost:{port}/")
        page.wait_for_function("window.results.json && window.results.plain")
        results = page.evaluate("window.results")
        assert str(results["json"]).startswith("blocked")  # no CORS preflight is ever granted
        assert results["plain"] == "opaque"  # sent, and refused: see the store below
        with page.expect_navigation():
            page.evaluate("document.getElementById('form').submit()")
        assert "is refused" in page.content() or "X-Promptum-Token" in page.content()
    finally:
        attacker.shutdown()
        thread.join(timeout=10)
    assert served.store.reviews(RUN) == []
