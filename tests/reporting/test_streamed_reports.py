"""Reports of a streamed run, written from the run store, are those of the same run kept."""

from __future__ import annotations

import itertools
import os
import re
import textwrap
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from report_samples import MODELS, STARTED, big_results, big_run, repeated_run, sample_run

from promptum import Session
from promptum.foundations.redaction import REDACTED, environment_secrets
from promptum.reporting import REPORT_FORMATS, _source, render_report, write_report
from promptum.reporting._registry import register_report_format, unregister_report_format
from promptum.store import RunStore
from promptum.values.run_result import CaseResult, RunResult

SECRET = "sk-streamed-report-0123456789abcdef"
WHOLE_RUN = ["html", "xml", "md", "csv", "json"]
"""The formats written after a run (JSONL is written as it goes)."""

APP = """
import itertools
import os

_flips = itertools.count()


def answer(query: str, n: int) -> str:
    if n % 9 == 0:
        raise RuntimeError(f"bad gateway <b>{n}</b>")
    if n == 5:
        return "the key is " + os.environ.get("PROMPTUM_STREAMED_API_KEY", "none")
    if n % 4 == 1:
        return f"maybe {n}" if next(_flips) % 2 else "no idea"
    return f"The answer is {n}" if n % 2 == 0 else "I cannot say"
"""


def _suite(folder: Path, cases: int) -> Path:
    (folder / "app.py").write_text(APP, encoding="utf-8")
    lines = []
    for n in range(cases):
        tags = ["even" if n % 2 == 0 else "odd", "<b>tag</b>" if n % 3 == 0 else "plain"]
        lines += [
            f"  - id: case-{n:03d}",
            f"    vars: {{n: {n}}}",
            f"    tags: [{', '.join(repr(t) for t in tags)}]",
            f"    checks: [{{type: contains, value: '{n}'}}, {{type: max_length, value: 40}}]",
        ]
        if n == 9:  # errs: the gate names it
            lines.append("    must_pass: true")
    suite = folder / "suite.yaml"
    header = """\
        name: streamed <demo>
        target: app.py:answer
        prompts:
          plain: "Say the number {{ n }}"
          polite: "Please say the number {{ n }}"
        repeat: 2
        test_cases:
        """
    suite.write_text(textwrap.dedent(header) + "\n".join(lines) + "\n", encoding="utf-8")
    return suite


@pytest.fixture(params=["no secrets", "a secret"])
def environment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """No secret-looking variable at all (the run's own tally is used), or one (scrubbed)."""
    for name in list(os.environ):
        if environment_secrets({name: os.environ[name]}):
            monkeypatch.delenv(name)
    if request.param == "a secret":
        monkeypatch.setenv("PROMPTUM_STREAMED_API_KEY", SECRET)
    return str(request.param)


def test_every_report_of_a_streamed_run_is_that_of_the_run_kept(
    tmp_path: Path, environment: str
) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    session = Session(concurrency=4)
    session.add_suite(_suite(tmp_path, 30))
    run = session.run(keep_results=False, sinks=[store.recorder()])
    assert run.results == []
    assert run.result_count == 120  # 30 cases × 2 prompt variants × 2 repeats
    loaded = store.load(run.run_id)
    assert len(loaded.results) == 120
    assert (run.git_commit, run.git_dirty) == (loaded.git_commit, loaded.git_dirty)

    reads = itertools.count()

    def results() -> Iterator[CaseResult]:
        next(reads)
        return store.iter_results(run.run_id, batch=7)

    for name in REPORT_FORMATS:
        streamed_path, kept_path = tmp_path / f"streamed.{name}", tmp_path / f"kept.{name}"
        write_report(run, streamed_path, results=results)
        write_report(loaded, kept_path)
        streamed, kept = streamed_path.read_bytes(), kept_path.read_bytes()
        assert streamed == kept, name
        assert SECRET.encode() not in streamed
    assert next(reads) >= len(REPORT_FORMATS)

    # What was compared is a real run's report, not two empty ones.
    text = (tmp_path / "streamed.md").read_text(encoding="utf-8")
    assert "### Flaky cases" in text
    assert "### Failures" in text
    assert "Best prompt on target:" in text or "Prompt variants on target:" in text
    assert "must-pass case" in text
    junit = (tmp_path / "streamed.xml").read_text(encoding="utf-8")
    assert re.search(r'<testsuites [^>]*tests="120" failures="\d+" errors="16"', junit)
    if environment == "a secret":
        text = (tmp_path / "streamed.json").read_text(encoding="utf-8")
        assert f'"the key is {REDACTED}"' in text


def test_a_streamed_run_without_its_results_is_refused(tmp_path: Path) -> None:
    session = Session(concurrency=2)
    session.add_suite(_suite(tmp_path, 3))
    run: RunResult = session.run(keep_results=False)
    with pytest.raises(ValueError, match="pass `results`"):
        write_report(run, tmp_path / "report.html")


def _shell(run: RunResult, counted: bool) -> RunResult:
    """`run` as a streamed run holds it: no results, and its figures counted or not at all."""
    shell = run.model_copy(update={"results": []})
    if counted:
        shell.streamed(run.tally())
    return shell


@pytest.mark.parametrize("counted", [True, False], ids=["its tally", "no tally"])
@pytest.mark.parametrize("make", [sample_run, repeated_run, lambda: big_run(200)])
def test_reports_from_an_iterator_scrub_each_result(
    make: Callable[[], RunResult], counted: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A secret in the responses: the results streamed in must be scrubbed one by one, as
    # the run kept is scrubbed whole.
    monkeypatch.setenv("PROMPTUM_REPORT_TOKEN", "capital of France is Paris")
    run = make()
    held = "capital of France is Paris" in run.model_dump_json()
    for name in REPORT_FORMATS:
        streamed_path, kept_path = tmp_path / f"streamed.{name}", tmp_path / f"kept.{name}"
        write_report(_shell(run, counted), streamed_path, results=lambda: iter(run.results))
        write_report(run, kept_path)
        assert streamed_path.read_bytes() == kept_path.read_bytes(), name
    text = (tmp_path / "streamed.json").read_text("utf-8")
    assert "capital of France is Paris" not in text
    assert (f"The {REDACTED}." in text) == held


def test_a_plugin_format_gets_the_run_with_its_results_loaded(tmp_path: Path) -> None:
    seen: list[int] = []

    def count(run: RunResult) -> str:
        seen.append(len(run.results))
        return f"{run.run_id}: {run.result_count} results, {run.pass_rate:.2f}\n"

    register_report_format("count", count, "tests")
    try:
        run = sample_run()
        write_report(_shell(run, True), tmp_path / "a.count", results=lambda: iter(run.results))
        write_report(run, tmp_path / "b.count")
    finally:
        unregister_report_format("count")
    assert seen == [len(run.results)] * 2
    assert (tmp_path / "a.count").read_text() == (tmp_path / "b.count").read_text()


def _peak(fmt: str, results: list[CaseResult], rounds: int, path: Path) -> int:
    shell = RunResult(run_id="memory", models=MODELS, started_at=STARTED)
    tracemalloc.start()
    try:
        write_report(shell, path, fmt, results=lambda: (r for _ in range(rounds) for r in results))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", WHOLE_RUN)
def test_memory_does_not_grow_with_the_results_streamed(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same results over and over: the source allocates nothing, so what grows is the
    # writer's. Parts written out of order move to disk sooner than they would.
    monkeypatch.setattr(_source, "_SPOOL", 64 << 10)
    results = list(big_results(100))
    _peak(fmt, results, 1, tmp_path / f"warm.{fmt}")
    small = _peak(fmt, results, 2, tmp_path / f"small.{fmt}")
    large = _peak(fmt, results, 12, tmp_path / f"large.{fmt}")
    per_result = (large - small) / (10 * len(results))
    # A result kept in memory costs about 6 KB; the writer's share is a latency or two.
    assert per_result < 64, f"{per_result:.0f} bytes per result"


@pytest.mark.parametrize("fmt", ["xml", "html"])
def test_parts_written_out_of_order_may_wait_on_disk(
    fmt: str, big: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    # JUnit's test cases per model and the page's prompt and check tables wait in a
    # temporary file once they outgrow memory: the report is the same either way.
    in_memory = render_report(big, fmt)
    monkeypatch.setattr(_source, "_SPOOL", 4096)
    assert render_report(big, fmt) == in_memory
