"""The viewer in headless Chromium against a real uvicorn server on 127.0.0.1."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from typing import Any

import pytest

from tests.store.samples import GPT, LOCAL, SCRIPT
from tests.viewer.conftest import Viewer

pytestmark = pytest.mark.slow


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.set_default_timeout(10_000)
    yield page
    assert dialogs == [], "a script from the data ran"
    context.close()


def test_list_open_a_run_and_filter(viewer: Viewer, page: Any) -> None:
    page.goto(viewer.url + "/")
    rows = page.locator("#runs tbody tr")
    assert rows.count() == 3
    assert rows.first.locator("td").first.inner_text() == "run-xss"  # newest first

    page.get_by_role("link", name="run-base", exact=True).click()
    page.wait_for_selector("#matrix")
    assert "run-base" in page.locator(".facts").inner_text()
    shown = page.locator("#shown")
    assert shown.inner_text() == "18 of 18 cases"  # 6 cases × 3 repeats
    page.check("#failed-only")
    # local fails capital-1 and -4 (3 repeats each), capital-2 and -5 once (repeat 2); gpt
    # errs on capital-5 repeat 1, which local passed.
    assert shown.inner_text() == "9 of 18 cases"
    page.select_option("#model-filter", label=GPT)
    assert shown.inner_text() == "1 of 18 cases"
    page.uncheck("#failed-only")
    page.fill("#search", "capital-3")
    assert shown.inner_text() == "3 of 18 cases"


def test_list_filters_by_model_and_suite(viewer: Viewer, page: Any) -> None:
    page.goto(viewer.url + "/")
    page.select_option("#model-filter", label=GPT)
    page.fill("#suite-filter", "geo")
    page.click("#filter-form button")
    page.wait_for_url("**/?suite=geo&model=*")
    ids = page.locator("#runs tbody tr td:first-child").all_inner_texts()
    assert ids == ["run-next", "run-base"]


def test_compare_two_runs_then_a_case_history(viewer: Viewer, page: Any) -> None:
    page.goto(viewer.url + "/")
    page.select_option("#compare-a", "run-base")
    page.select_option("#compare-b", "run-next")
    page.click("#compare-form button")
    page.wait_for_selector(".pair")
    local = page.locator(".pair").first
    assert f"{LOCAL} @ run-base → {LOCAL} @ run-next" in local.locator("h2").inner_text()
    assert "0 cases rose, 2 fell" in local.locator(".verdict").inner_text()
    regressed = local.locator(".sbs.regressed .sbs-row")
    assert regressed.count() == 2
    assert regressed.first.locator(".status").all_text_contents() == ["pass", "fail"]
    assert SCRIPT in regressed.first.inner_text()  # the response, shown as text

    regressed.first.locator("a.case-id").click()
    page.wait_for_selector("#history")
    history = page.locator("#history tbody tr")
    runs = {history.nth(i).locator("td").first.inner_text() for i in range(history.count())}
    assert runs == {"run-base", "run-next"}
    assert history.count() == 6  # 3 repeats in each run, on the local model only


def test_compare_two_models_of_one_run(viewer: Viewer, page: Any) -> None:
    page.goto(f"{viewer.url}/compare?a=run-base&model_a={LOCAL}&model_b={GPT}")
    assert f"{LOCAL} @ run-base → {GPT} @ run-base" in page.locator(".pair h2").inner_text()
    page.goto(f"{viewer.url}/compare?a=run-base&b=no-such-run")
    assert "no run 'no-such-run'" in page.locator("#error").inner_text()


def test_nothing_from_the_data_runs_as_script(viewer: Viewer, page: Any) -> None:
    page.goto(viewer.url + "/")
    assert "onerror" in page.locator("#runs").inner_text()  # shown as text
    page.get_by_role("link", name="run-xss", exact=True).click()
    page.wait_for_selector("#matrix")
    for button in page.locator("button.status").all():
        button.click()
        page.click("#detail-close")
    assert SCRIPT in (page.locator("#matrix").text_content() or "")
    page.goto(f"{viewer.url}/compare?a=run-xss&b=run-xss")
    page.goto(f"{viewer.url}/cases?id={SCRIPT}")
    assert SCRIPT in page.locator("h1").inner_text()
    assert page.evaluate("window.__pwned") is None


def _raw_get(viewer: Viewer, path: str, host: str | None = None) -> tuple[int, str]:
    """A request sent exactly as written: a browser would normalise the dots away."""
    connection = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=10)
    connection.putrequest("GET", path, skip_host=True)
    connection.putheader("Host", host or f"127.0.0.1:{viewer.port}")
    connection.endheaders()
    response = connection.getresponse()
    body = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, body


@pytest.mark.parametrize(
    "path",
    [
        "/static/../../etc/passwd",
        "/static/..%2f..%2f..%2fetc%2fpasswd",
        "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%252f..%252fetc%252fpasswd",
        "/..%5c..%5c..%5cetc%5cpasswd",
        "/runs/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/runs/../../../../etc/passwd",
        "//etc/passwd",
        "/runs/%2fetc%2fpasswd",
    ],
)
def test_no_path_outside_the_store_can_be_read(viewer: Viewer, path: str) -> None:
    status, body = _raw_get(viewer, path)
    assert status in (400, 404)
    assert "root:" not in body


def test_a_foreign_host_header_is_refused(viewer: Viewer) -> None:
    # A DNS-rebinding page would reach 127.0.0.1 under its own host name.
    status, body = _raw_get(viewer, "/", host="attacker.example")
    assert status == 400
    assert "run-base" not in body
    status, _ = _raw_get(viewer, "/", host=f"localhost:{viewer.port}")
    assert status == 200


def test_responses_carry_protective_headers(viewer: Viewer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=10)
    connection.request("GET", "/")
    response = connection.getresponse()
    response.read()
    connection.close()
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("X-Frame-Options") == "DENY"
