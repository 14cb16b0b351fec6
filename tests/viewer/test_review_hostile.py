"""Hostile writes over real HTTP, and reviews on the run page: refused cleanly, shown as text."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote
from urllib.request import urlopen

import pytest

from promptum.foundations.redaction import REDACTED
from tests.reporting.report_samples import IMG, PWN, SCRIPT
from tests.viewer.review_support import RUN, Served, post, serving_project, target

pytestmark = pytest.mark.slow  # a real uvicorn server on loopback

KEY = "sk-proj-Th1sIsAFakeKeyThatMustNeverBeWritten0123"


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the viewer runs in this process
    with serving_project(tmp_path / "project", f"ada {IMG}") as served:
        yield served


def _raw(served: Served, body: bytes) -> tuple[int, dict[str, Any]]:
    """`body` sent as it is: the JSON a script could spell, not what json.dumps gives."""
    return post(served, "/api/reviews", body)


@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        (b'{"case": "\\ud800", "verdict": "good"}', 400, "lone surrogate"),
        (b'{"comment": "\\udc80", "verdict": "good"}', 400, "lone surrogate"),
        (b'{"override": "pass", "reason": {"a": "b"}}', 422, "reason must be text, not dict"),
        (b'{"verdict": "good", "comment": ["x"]}', 422, "comment must be text, not list"),
        (b"[" * 30_000 + b"]" * 30_000, 400, "nests too deep"),
    ],
)
def test_a_malformed_write_is_a_4xx_not_a_server_error(
    served: Served, body: bytes, code: int, says: str
) -> None:
    given = json.dumps(target()).encode()
    if body.startswith(b"{"):
        body = given[:-1] + b", " + body[1:]  # the result named, then the bad fields
    status, answer = _raw(served, body)
    assert status == code, answer
    assert says in answer["error"]
    assert served.store.reviews(RUN) == []


def test_a_chunked_body_is_cut_off_at_the_limit(served: Served) -> None:
    # A body without Content-Length, whose end never comes: the viewer answers once it has
    # read past the limit instead of waiting for (and holding) all of it.
    head = (
        "POST /api/reviews HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{served.port}\r\n"
        "Content-Type: application/json\r\n"
        f"X-Promptum-Token: {served.token}\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"x" * 8192
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as connection:
        connection.sendall(head + b'd\r\n{"comment": "\r\n')
        for _ in range(9):  # 72 KB of the comment, and no last chunk
            connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        answer = b""
        while b"}" not in answer:  # the head, then the JSON body (maybe in another packet)
            received = connection.recv(65536)
            assert received, answer
            answer += received
    assert answer.startswith(b"HTTP/1.1 413"), answer
    assert b"at most 65536 bytes" in answer
    assert served.store.reviews(RUN) == []


def test_a_key_pasted_into_a_review_is_not_stored(served: Served) -> None:
    body = {**target(), "override": "fail", "reason": f"leaks {KEY}", "comment": f"{KEY}!"}
    status, answer = post(served, "/api/reviews", body)
    assert status == 201, answer
    assert KEY not in json.dumps(answer)
    [review] = served.store.reviews(RUN)
    assert (review.reason, review.comment) == (f"leaks {REDACTED}", f"{REDACTED}!")
    assert KEY.encode() not in served.store.path.read_bytes()


def test_the_run_page_shows_reviews_as_text(served: Served, browser: Any) -> None:
    comment = f"names Lyon {PWN} {SCRIPT}"
    status, answer = post(
        served, "/api/reviews", {**target(), "verdict": "bad", "comment": comment}
    )
    assert status == 201, answer
    page = browser.new_page()
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{served.url}/runs/{RUN}")
    row = page.locator("#matrix .row").filter(has=page.locator(".case-id", has_text="capital"))
    row.first.locator('[data-col="0"] button.status').click()
    detail = page.locator("#detail-body")
    assert detail.locator("h3", has_text="Human reviews").is_visible()
    items = detail.locator("li").all_inner_texts()
    assert any(item.startswith(f"bad · ada {IMG} · ") for item in items), items
    assert comment in detail.inner_text()
    for hostile in ("<script>", "</b>"):  # criterion and suite echoed on the calibration page
        page.goto(f"{served.url}/calibrate?criterion={quote(hostile + PWN)}&suite={quote(IMG)}")
        assert PWN in page.locator("h1 + p").inner_text()
    assert dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert all(url.startswith(served.url) for url in requests), requests
    page.close()


def test_an_empty_calibration_says_whether_filters_hid_it(served: Served) -> None:
    with urlopen(f"{served.url}/calibrate", timeout=10) as response:
        assert "No judge grade has a review yet" in response.read().decode()
    with urlopen(f"{served.url}/calibrate?suite=elsewhere", timeout=10) as response:
        assert "No reviewed judge grade matches these filters" in response.read().decode()
