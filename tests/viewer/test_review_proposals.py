"""`promptum view --review FILE`: proposed cases kept, edited or dropped, written whole."""

from __future__ import annotations

import hashlib
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from promptum.cli import main
from promptum.suites import load_suite
from tests.reporting.report_samples import SCRIPT
from tests.viewer.proposals_support import PROPOSED, reviewing, write_proposed
from tests.viewer.review_support import SUITE, post
from tests.viewer.serving import first_page, free_port, promptum_view


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _decisions(path: Path, into: Path | None = None, **given: Any) -> dict[str, Any]:
    """A write's body as the page sends it: the digests it read, the drops and the edits."""
    return {"sha256": _sha(path), "target_sha256": _sha(into) if into else None, **given}


def _validates(path: Path) -> None:
    done = CliRunner().invoke(main, ["validate", str(path)])
    assert done.exit_code == 0, done.output
    assert f"✓ {path}" in done.output


def test_the_page_shows_one_row_per_proposed_case_as_text(tmp_path: Path) -> None:
    path = write_proposed(tmp_path)
    with reviewing(path) as served, urllib.request.urlopen(f"{served.url}/", timeout=10) as got:
        page = got.read().decode()
        policy = got.headers["Content-Security-Policy"]
    assert page.count('class="proposal"') == 3
    for shown in (
        "refund-time",
        "source:docs/refunds.md:3-5",
        "generated:question",
        "Names Paris.",
    ):
        assert shown in page
    assert "trace:4bf92f3577b34da6a3ce929d0e0e4736" in page
    assert "What&#39;s the weather in Paris?" in page  # a traced case's last user message
    assert 'value="5 business days"' in page  # the check's text, editable
    assert SCRIPT not in page
    assert "&lt;script&gt;" in page
    assert "connect-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy


def test_dropped_cases_are_cut_and_edits_written_in_place(tmp_path: Path) -> None:
    path = write_proposed(tmp_path)
    edits = {
        "refund-time": {
            "expected_behavior": "Says 5 to 7 business days, yes.",
            "checks": {"0": "business days"},
        }
    }
    with reviewing(path) as served:
        status, answer = post(
            served, "/api/proposals", _decisions(path, drop=["capital"], edits=edits)
        )
    assert status == 201, answer
    assert answer == {
        "file": str(path),
        "kept": ["refund-time", "span-00f067aa0ba902b7"],
        "dropped": ["capital"],
        "renamed": {},
    }
    text = path.read_text()
    cases = yaml.safe_load(text)["test_cases"]
    assert [case["id"] for case in cases] == ["refund-time", "span-00f067aa0ba902b7"]
    assert "capital" not in text
    assert cases[0]["expected_behavior"] == "Says 5 to 7 business days, yes."
    assert cases[0]["checks"] == [{"type": "contains", "value": "business days"}]
    assert cases[0]["tags"] == ["generated", "generated:document", "source:docs/refunds.md:3-5"]
    # The head, the comments and the untouched case are the file's own bytes.
    head, traced = PROPOSED.split("  # from docs/refunds.md")[0], PROPOSED.split("\n\n")[-1]
    assert text.startswith(head + "  # from docs/refunds.md:3-5\n")
    assert text.endswith(traced)
    _validates(path)


def test_kept_cases_go_into_another_suite_with_unique_ids(tmp_path: Path) -> None:
    path = write_proposed(tmp_path)
    suite = tmp_path / "support.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    edits = {"capital": {"expected_behavior": "Names Paris, and only Paris."}}
    with reviewing(path, into=suite) as served:
        body = _decisions(path, suite, drop=["span-00f067aa0ba902b7"], edits=edits)
        status, answer = post(served, "/api/proposals", body)
    assert status == 201, answer
    assert answer["kept"] == ["refund-time", "capital-2"]
    assert answer["renamed"] == {"capital": "capital-2"}  # support.yaml has a `capital`
    assert path.read_text() == PROPOSED  # the proposals are left as they were
    text = suite.read_text()
    cases = yaml.safe_load(text)["test_cases"]
    assert [case["id"] for case in cases] == ["capital", "greeting", "refund-time", "capital-2"]
    assert cases[3]["expected_behavior"] == "Names Paris, and only Paris."
    assert cases[3]["query"] == f"What is the capital of France? {SCRIPT}"
    assert "span-00f067aa0ba902b7" not in text
    assert "\n  # from docs/refunds.md:3-5\n  - id: refund-time\n" in text  # where it came from
    before, after = SUITE.split("# Settings after the cases")
    assert text.startswith(before.rstrip("\n"))
    assert text.endswith("# Settings after the cases" + after)
    assert [case.id for case in load_suite(suite).cases][-1] == "capital-2"
    _validates(suite)


@pytest.mark.parametrize(
    ("change", "status", "reason"),
    [
        ({"drop": ["capital", "refund-time", "span-00f067aa0ba902b7"]}, 422, "would not validate"),
        ({"sha256": "0" * 64}, 409, "changed since the page read it"),
        ({"drop": ["no-such-case"]}, 409, "has no case 'no-such-case'"),
        ({"edits": {"capital": {"expected_behavior": "  "}}}, 422, "1 to 4000 characters"),
        ({"edits": {"capital": {"checks": {"0": "x"}}}}, 422, "check 0 has no text value"),
        ({"drop": "capital"}, 422, "drop must be a list"),
    ],
)
def test_a_refused_write_changes_nothing(
    tmp_path: Path, change: dict[str, Any], status: int, reason: str
) -> None:
    path = write_proposed(tmp_path)
    with reviewing(path) as served:
        got, answer = post(served, "/api/proposals", {**_decisions(path), **change})
    assert (got, reason in answer["error"]) == (status, True), answer
    assert path.read_text() == PROPOSED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["proposed.yaml"]  # no temporary left


@pytest.mark.parametrize(
    ("headers", "token"),
    [({}, ""), ({}, "guess"), ({"Origin": "http://evil.example"}, None)],
)
def test_a_write_without_the_token_or_from_another_origin_is_refused(
    tmp_path: Path, headers: dict[str, str], token: str | None
) -> None:
    path = write_proposed(tmp_path)
    with reviewing(path) as served:
        body = _decisions(path, drop=["capital"])
        status, _ = post(served, "/api/proposals", body, token=token, headers=headers)
    assert status == 403
    assert path.read_text() == PROPOSED


@pytest.mark.parametrize(
    ("text", "located"),
    [
        ("test_cases:\n  - id: one\n    query: [unclosed\n", "proposed.yaml:4:1: invalid YAML"),
        ("name: x\ntest_cases:\n  - id: one\n    qeury: hi\n", "proposed.yaml:4"),
    ],
)
def test_a_malformed_file_is_a_located_error_and_exit_2(
    tmp_path: Path, text: str, located: str
) -> None:
    path = tmp_path / "proposed.yaml"
    path.write_text(text, encoding="utf-8")
    done = CliRunner().invoke(main, ["view", "--review", str(path), "--port", "1"])
    assert done.exit_code == 2, done.output
    assert located in done.output
    assert "Traceback" not in done.output


def test_a_suite_to_write_into_that_cannot_take_cases_is_refused_at_start(tmp_path: Path) -> None:
    path = write_proposed(tmp_path)
    flow = tmp_path / "flow.yaml"
    flow.write_text("test_cases: [{id: one, query: hi}]\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["view", "--review", str(path), "--into", str(flow)])
    assert done.exit_code == 2
    assert f"{flow}: test_cases is written as a [flow] list" in done.output
    done = CliRunner().invoke(main, ["view", "--into", str(flow)])
    assert done.exit_code == 2
    assert "give --review FILE too" in done.output


@pytest.mark.slow
def test_the_command_serves_the_review_without_a_run_store(tmp_path: Path) -> None:
    path = write_proposed(tmp_path)
    port = free_port()
    server = promptum_view(tmp_path / "no-store.sqlite", port, "--review", str(path), cwd=tmp_path)
    try:
        assert "refund-time" in first_page(port)
        assert server.stdout is not None
        lines = [server.stdout.readline(), server.stdout.readline(), server.stdout.readline()]
    finally:
        server.terminate()
        server.communicate(timeout=15)
    assert lines[0] == f"promptum review of {path} on http://127.0.0.1:{port}/ (Ctrl-C stops it)\n"
    token = lines[1].split("writes need the token ")[1].split()[0]
    assert lines[2] == f"open http://127.0.0.1:{port}/#token={token} to review in your browser\n"
    assert not (tmp_path / "no-store.sqlite").exists()
