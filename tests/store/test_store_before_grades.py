"""A run store written before results held grades still loads, compares and reports."""

from __future__ import annotations

import shutil
from pathlib import Path

from promptum.compare import compare_runs
from promptum.reporting import render_report
from promptum.store import RunStore

OLD_STORE = Path(__file__).parent.parent / "data" / "runs-before-grades.sqlite"


def test_old_results_become_grades(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    run = RunStore(path).load("latest")
    by_id = {r.case_id: r for r in run.results}
    assert [(g.kind, g.name, g.passed) for g in by_id["checked"].grades] == [
        ("check", "contains", True),
        ("check", "max_length", False),
    ]
    assert by_id["checked"].reasons == ["max_length: length 11 > 5 characters"]
    asserted = by_id["asserted"]
    assert [(g.kind, g.name, g.passed) for g in asserted.grades] == [
        ("assertion", "city", False),
        ("assertion", "city", False),
    ]
    assert asserted.eval_result is not None
    assert [d.op for d in asserted.eval_result.details] == ["eq", "ne"]
    (judged,) = by_id["judged"].grades
    assert (judged.kind, judged.score, judged.passed) == ("judge", 0.3, False)
    assert by_id["judged"].judge is not None
    assert by_id["judged"].judge.threshold == 0.5
    assert by_id["judged"].reasons == ["judge score 0.3 < 0.5: vague"]
    assert run.stats()["fault/m"].checks_total == 2
    assert run.stats()["fault/m"].assertions_total == 2


def test_an_old_run_compares_with_a_new_one_and_reports(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    store = RunStore(path)
    old = store.load("latest")
    recorder = store.recorder()
    new = old.model_copy(update={"run_id": "new-run", "results": list(old.results)})
    recorder.start(new)
    for result in new.results:
        recorder.add(result.model_copy(update={"status": "pass", "grades": []}))
    recorder.finish(new)
    comparison = compare_runs(store.load(old.run_id), store.load("new-run"))
    (pair,) = comparison.models
    assert len(pair.of_kind("fixed")) == 3
    for fmt in ("json", "csv", "md", "xml", "html"):
        text = render_report(old, fmt)
        assert "max" in text, fmt  # the failed max_length check
        assert "0.3" in text, fmt  # the judge's score
