"""Text a transform gave, shown in the HTML report's detail in a browser, runs nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptum.reporting import render_report
from promptum.values.completion import Completion
from promptum.values.grade import Grade
from promptum.values.run_result import CaseResult, Message, RunResult


def labelled(passed: bool, **details: object) -> Grade:
    reason = None if passed else "no"
    return Grade("check", "contains", passed, None, reason, "Contains", details=details)


PAYLOAD = (
    "</script><script>window.__pwned = 1</script>"
    "<img src=http://127.0.0.1:9/x onerror='window.__pwned = 2'>"
)


@pytest.mark.slow
def test_transformed_text_in_the_html_report_runs_nothing(browser: Any, tmp_path: Path) -> None:
    """What a transform gave (model text plus the suite's) is shown as text in the detail."""
    seen = Grade(
        "check", "contains", False, None, "no", "Contains", details={"transformed": PAYLOAD}
    )
    result = CaseResult(
        case_id="xss",
        model="m1",
        status="fail",
        messages=[Message(role="user", content="q")],
        completion=Completion(text=PAYLOAD, model="m1"),
        grades=[labelled(True, metric="accuracy"), seen],
    )
    run = RunResult(run_id="r1", suite="s", models=["m1"], results=[result])
    path = tmp_path / "report.html"
    path.write_text(render_report(run, "html"), encoding="utf-8")
    page = browser.new_page()
    events: list[str] = []
    page.on("dialog", lambda dialog: (events.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: events.append(str(error)))
    page.on("request", lambda request: events.append(request.url))
    page.goto(path.as_uri())
    page.locator("[data-cell] button.status").first.click()
    detail = page.locator("#detail-body").inner_text()
    assert "Response after transform" in detail
    assert detail.count("window.__pwned = 2") == 2  # the response, then what the check saw
    assert page.evaluate("window.__pwned") is None
    assert [e for e in events if not e.startswith("file://")] == []
    page.close()
