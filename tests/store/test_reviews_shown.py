"""Reviews beside the grades: `runs show --json`, the JSON and HTML reports of a stored run."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from promptum.reporting import load_run, render_report, write_report
from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record
from tests.support.cli import exit_code_and_output

WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
PAYLOAD = "</script><img src=x onerror=alert(1)>"


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, make_run("run-a", mixed_outcomes()))
    return store


def add_reviews(store: RunStore) -> None:
    store.add_review(
        Review("run-a", "capital-1", None, LOCAL, 1, verdict="good", score=0.9,
               comment=PAYLOAD, reviewer="ada", created_at=WHEN)
    )  # fmt: skip
    store.add_review(
        Review("run-a", "capital-0", None, LOCAL, 2, criterion="judge", override="fail",
               reason="made up a source", reviewer="bob", created_at=WHEN)
    )  # fmt: skip


def test_runs_show_json_lists_reviews_beside_the_results(store: RunStore) -> None:
    code, before = exit_code_and_output("runs", "show", "run-a", "--json", "--db", str(store.path))
    assert code == 0
    assert "reviews" not in before  # the same shape as ever
    assert "reviewed" not in before
    add_reviews(store)
    code, out = exit_code_and_output("runs", "show", "run-a", "--json", "--db", str(store.path))
    data = json.loads(out)
    failure = next(f for f in data["failures"] if f["case_id"] == "capital-1")
    assert failure["reviews"] == [
        {"verdict": "good", "score": 0.9, "comment": PAYLOAD, "reviewer": "ada",
         "created_at": "2026-12-01T12:00:00+00:00"}
    ]  # fmt: skip
    assert all("reviews" not in f for f in data["failures"] if f["case_id"] != "capital-1")
    reviewed = {(item["case_id"], item["repeat"]): item for item in data["reviewed"]}
    assert set(reviewed) == {("capital-1", 1), ("capital-0", 2)}
    assert reviewed["capital-0", 2]["status"] == "pass"  # the recorded grade, as it was
    assert reviewed["capital-0", 2]["reviews"][0]["override"] == "fail"


def test_reports_of_a_stored_run_show_its_reviews(store: RunStore, tmp_path: Path) -> None:
    add_reviews(store)
    html, report = tmp_path / "run.html", tmp_path / "run.json"
    code, _ = exit_code_and_output(
        "report", "run-a", "-o", str(html), "-o", str(report), "--db", str(store.path)
    )
    assert code == 0
    data = json.loads(report.read_text())
    by_key = {(r["case_id"], r["model"], r["repeat"]): r for r in data["results"]}
    assert by_key["capital-1", LOCAL, 1]["reviews"][0]["comment"] == PAYLOAD
    assert by_key["capital-0", LOCAL, 2]["reviews"][0]["reason"] == "made up a source"
    assert sum("reviews" in r for r in data["results"]) == 2
    assert len(load_run(report).results) == len(data["results"])  # still loads back
    page = html.read_text()
    assert "good, score 0.9 · ada · 2026-12-01 12:00 UTC" in page
    assert "override → fail on judge · bob" in page
    assert PAYLOAD not in page  # inside the data block its "<" is escaped: inert text
    assert re.search(r"\\u003c/script\\u003e\\u003cimg src=x onerror=alert\(1\)", page)
    code, _ = exit_code_and_output(
        "runs", "export", "run-a", "-o", str(tmp_path / "e.json"), "--db", str(store.path)
    )
    assert json.loads((tmp_path / "e.json").read_text()) == data


@pytest.mark.parametrize("name", ["run.json", "run.html", "run.csv", "run.md", "run.xml"])
def test_reports_without_reviews_are_byte_identical(
    store: RunStore, tmp_path: Path, name: str
) -> None:
    run = store.load("run-a")
    plain, given = tmp_path / "plain" / name, tmp_path / "given" / name
    write_report(run, plain)
    write_report(run, given, reviews=store.reviews_by_result("run-a"))  # none stored: {}
    assert given.read_bytes() == plain.read_bytes()
    code, _ = exit_code_and_output(
        "report", "run-a", "-o", str(tmp_path / name), "--db", str(store.path)
    )
    assert code == 0
    assert (tmp_path / name).read_bytes() == plain.read_bytes()


def test_the_python_example_of_docs_review_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = Path(__file__).parents[2] / "docs" / "review.md"
    (example,) = re.findall(r"```python\n(.*?)```", docs.read_text(encoding="utf-8"), re.DOTALL)
    monkeypatch.chdir(tmp_path)
    record(RunStore(tmp_path / ".promptum" / "runs.sqlite"), make_run("run-a", mixed_outcomes()))
    exec(compile(example, str(docs), "exec"), {})  # the project's own docs
    (written,) = RunStore(tmp_path / ".promptum" / "runs.sqlite").reviews("run-a")
    assert (written.verdict, written.score, written.reviewer) == ("bad", 0.2, "ada")
    assert "Invents a refund policy." in capsys.readouterr().out


def test_render_report_takes_reviews_as_the_viewer_gives_them(store: RunStore) -> None:
    run = store.load("run-a")
    plain = render_report(run, "html")
    assert render_report(run, "html", reviews={}) == plain
    add_reviews(store)
    page = render_report(run, "html", reviews=store.reviews_by_result("run-a"))
    assert "good, score 0.9 · ada" in page
    assert "good, score 0.9 · ada" not in plain
    data = json.loads(render_report(run, "json", reviews=store.reviews_by_result("run-a")))
    assert sum("reviews" in result for result in data["results"]) == 2
