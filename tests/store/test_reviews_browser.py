"""People's reviews in the HTML report of a stored run, in headless Chromium: shown, inert."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from promptum.reporting import write_report
from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record

pytestmark = pytest.mark.slow

# The payloads the HTML report is tested with (tests/reporting/report_samples.py).
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
PWN = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'


def test_reviews_show_in_the_detail_view_as_text(browser: Any, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, make_run("run-a", mixed_outcomes()))
    when = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    store.add_review(
        Review("run-a", "capital-1", None, LOCAL, 1, verdict="bad", comment=PWN + SCRIPT,
               reviewer=IMG, created_at=when)
    )  # fmt: skip
    store.add_review(
        Review("run-a", "capital-1", None, LOCAL, 1, criterion="judge", override="pass",
               reason=SCRIPT, reviewer="bob", created_at=when)
    )  # fmt: skip
    path = tmp_path / "run.html"
    write_report(store.load("run-a"), path, reviews=store.reviews_by_result("run-a"))

    page = browser.new_page()
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    row = page.locator("#matrix .row").filter(has=page.locator(".case-id", has_text="capital-1"))
    row.first.locator('[data-col="0"] button.status').click()
    detail = page.locator("#detail-body")
    assert detail.locator("h3", has_text="Human reviews").is_visible()
    items = detail.locator("li").all_inner_texts()
    assert any(item.startswith(f"bad · {IMG} · 2026-12-01 12:00 UTC") for item in items)
    assert any(item.startswith("override → pass on judge · bob") for item in items)
    assert PWN + SCRIPT in detail.inner_text()  # the comment, as text
    assert dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert all(url.startswith("file://") for url in requests)
    page.close()
