"""The matrix's store queries, its JSON API, the word diff and the trends, without a browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from promptum.reporting import csp_hash
from promptum.store import MatrixFilter, RunStore
from promptum.store._matrix import p95_rank
from promptum.values.run_result import RunResult
from promptum.viewer import create_app
from promptum.viewer._diff import word_diff
from promptum.viewer._trends import Marks, _changes
from tests.store.samples import GPT, LOCAL
from tests.viewer.matrix_samples import HOSTILE, IMG, PAYLOADS, fill, many_run


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    store = RunStore(tmp_path_factory.mktemp("matrix") / "runs.sqlite")
    fill(store)
    return store


@pytest.fixture(scope="module")
def client(store: RunStore) -> Iterator[TestClient]:
    with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
        yield client


def keys(store: RunStore, run: str, **filters: object) -> list[str]:
    page = store.matrix(run, MatrixFilter(**filters), limit=200)  # type: ignore[arg-type]
    assert page.total == len(page.cases)
    return [f"{c.suite}/{c.case_id}" for c in page.cases]


GEO = [f"geo/capital-{i}" for i in range(6)]


def test_cases_in_plan_order_with_every_column(store: RunStore) -> None:
    page = store.matrix("geo-base", MatrixFilter())
    assert [f"{c.suite}/{c.case_id}" for c in page.cases] == [*GEO, "math/add-0"]
    assert page.columns == [(LOCAL, "terse"), (GPT, "")]
    first = page.cases[0]
    assert sorted((r.model, r.repeat) for r in first.results) == sorted(
        (m, r) for m in (LOCAL, GPT) for r in (1, 2, 3)
    )
    assert first.other == []


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        # local fails capital-1 and -4, and -2, -5 once (flaky); gpt errs on capital-5.
        ({"failed": True}, ["geo/capital-1", "geo/capital-2", "geo/capital-4", "geo/capital-5"]),
        ({"errored": True}, ["geo/capital-5"]),
        ({"failed": True, "errored": True}, [f"geo/capital-{i}" for i in (1, 2, 4, 5)]),
        ({"flaky": True}, ["geo/capital-2", "geo/capital-5"]),
        ({"must_pass": True}, ["geo/capital-1"]),
        ({"tag": "math"}, ["math/add-0"]),
        ({"suite": "math"}, ["math/add-0"]),
        ({"suite": "geo", "errored": True}, ["geo/capital-5"]),
        ({"search": "PARIS. (capital-3"}, ["geo/capital-3"]),  # case ignored
        ({"search": "upstream overloaded"}, ["geo/capital-5"]),  # the error is searched too
        ({"search": "100%"}, []),  # % is text, not a wildcard
        ({"case_id": "capital-4", "suite": "geo"}, ["geo/capital-4"]),
    ],
)
def test_filters(store: RunStore, filters: dict[str, object], expected: list[str]) -> None:
    assert keys(store, "geo-base", **filters) == expected


def test_changed_since_another_run(store: RunStore) -> None:
    assert keys(store, "geo-next", changed_since="geo-base") == [
        "geo/capital-0",
        "geo/capital-3",
        f"geo/{HOSTILE}",  # not in the other run at all
    ]
    assert keys(store, "geo-base", changed_since="geo-base") == []
    assert keys(store, "geo-next", tag=IMG) == [f"geo/{HOSTILE}"]


def test_paging_counts_every_match_and_returns_one_page(store: RunStore) -> None:
    page = store.matrix("many", MatrixFilter(), offset=50, limit=50)
    assert page.total == 120
    assert [c.case_id for c in page.cases] == [f"case-{i:04d}" for i in range(50, 100)]
    assert len(store.matrix("many", MatrixFilter(), limit=10**6).cases) == 120
    failed = store.matrix("many", MatrixFilter(failed=True), offset=29, limit=5)
    assert failed.total == 30
    assert [c.case_id for c in failed.cases] == ["case-0116"]


def test_the_other_runs_results_come_with_the_page(store: RunStore) -> None:
    page = store.matrix("geo-next", MatrixFilter(case_id="capital-0"), other="geo-base")
    (case,) = page.cases
    assert {r.status for r in case.results if r.model == LOCAL} == {"fail"}
    assert {r.status for r in case.other if r.model == LOCAL} == {"pass"}
    assert page.other_columns == page.columns


def test_word_diff_keeps_both_texts() -> None:
    before, after = "The capital is Paris, of course.", "The capital is Lyon,  of course!"
    ops = word_diff(before, after)
    assert ops == [
        ("equal", "The capital is "),
        ("delete", "Paris, "),
        ("insert", "Lyon,  "),  # the space changed too: whitespace is a token of its own
        ("equal", "of "),
        ("delete", "course."),
        ("insert", "course!"),
    ]
    assert "".join(t for op, t in ops if op != "insert") == before
    assert "".join(t for op, t in ops if op != "delete") == after
    assert word_diff("same words", "same words") == [("equal", "same words")]


def test_p95_is_the_nearest_rank() -> None:
    assert p95_rank(1) == 0
    assert p95_rank(100) == 94  # the 95th of 100
    assert p95_rank(20) == 18  # the 19th of 20


def test_api_pages_and_refuses_bad_input(client: TestClient) -> None:
    body = client.get("/api/runs/many/matrix", params={"offset": 100, "limit": 50}).json()
    assert body["total"] == 120
    assert len(body["rows"]) == 20
    assert body["rows"][0]["cells"][0][0]["status"] == "fail"  # case-0100
    answer = client.get("/api/runs/many/matrix", params={"offset": "-1"})
    assert answer.status_code == 400
    assert "0 or more" in answer.json()["error"]
    answer = client.get("/api/runs/no-such-run/matrix")
    assert answer.status_code == 404
    assert "no run 'no-such-run'" in answer.json()["error"]
    answer = client.get("/api/runs/many/matrix", params={"changed": "nope"})
    assert answer.status_code == 404


def test_api_two_runs_side_by_side(client: TestClient) -> None:
    body = client.get(
        "/api/runs/geo-next/matrix", params={"b": "geo-base", "failed": "1", "limit": 1}
    ).json()
    labels = [c["label"] for c in body["columns"]]
    assert labels == [
        f"{LOCAL} · terse @ geo-next",
        f"{GPT} @ geo-next",
        f"{LOCAL} · terse @ geo-base",
        f"{GPT} @ geo-base",
    ]
    (row,) = body["rows"]
    assert row["key"] == "geo/capital-0"
    assert [[e["status"] for e in cell] for cell in row["cells"]] == [
        ["fail"] * 3,
        ["pass"] * 3,
        ["pass"] * 3,
        ["pass"] * 3,
    ]
    pills = row["cells"][0][0]["grades"]
    assert [p["name"] for p in pills if not p["passed"]] == ["contains", "city", "judge"]
    assert "expected to contain 'Paris'" in pills[0]["tip"]


def test_api_diff_between_runs_and_columns(client: TestClient) -> None:
    common = {"suite": "geo", "case": "capital-0", "repeat": "2"}
    runs = client.get(
        "/api/diff",
        params={**common, "run_a": "geo-base", "run_b": "geo-next", "model_a": LOCAL,
                "model_b": LOCAL, "variant_a": "terse", "variant_b": "terse"},
    ).json()  # fmt: skip
    assert ["delete", "Paris."] in runs["ops"]
    assert ["equal", " (capital-0 r2)"] in runs["ops"]
    columns = client.get(
        "/api/diff",
        params={**common, "run_a": "geo-next", "model_a": GPT, "model_b": LOCAL,
                "variant_b": "terse"},
    ).json()  # fmt: skip
    assert columns["ops"][0] == ["delete", "The capital of France"]
    missing = client.get("/api/diff", params={**common, "run_a": "geo-next", "model_a": "x"})
    assert missing.status_code == 400
    assert "no result of model 'x'" in missing.json()["error"]


def _policy_allows_its_script(html: str, policy: str) -> None:
    script = re.search(r"<script>(.*)</script>", html, re.DOTALL)
    assert script is not None
    assert f"script-src {csp_hash(script.group(1))};" in policy
    assert "connect-src 'self'" in policy
    assert "default-src 'none'" in policy


def test_pages_escape_the_data_and_allow_only_their_own_script(client: TestClient) -> None:
    page = client.get("/runs/geo-next/matrix", params={"b": "geo-base"})
    assert page.status_code == 200
    _policy_allows_its_script(page.text, page.headers["Content-Security-Policy"])
    for payload in PAYLOADS:
        # The hostile tag is an <option> of the tag filter: shown, escaped.
        assert payload not in page.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in page.text
    trends = client.get("/trends")
    assert trends.status_code == 200
    assert "<script" not in trends.text
    assert "script-src" not in trends.headers["Content-Security-Policy"]
    missing = client.get("/runs/nope/matrix")
    assert missing.status_code == 404


def test_trends_mark_the_significant_fall(client: TestClient) -> None:
    html = client.get("/trends", params={"suite": "trend"}).text
    assert html.count('class="trend-suite"') == 1
    assert html.count("<svg xmlns") == 4  # pass rate, judge mean, cost, latency p95
    marks = re.findall(r'<path class="mark mark-(\w+)"[^>]*><title>([^<]*)</title>', html)
    assert len(marks) == 1
    kind, why = marks[0]
    assert kind == "regression"
    assert why.startswith("regression against trend-1: pass rate -100%")
    # The model that held steady is drawn, unmarked: three points on each of four charts.
    assert html.count(f"{GPT} @ trend-") == 12
    only_gpt = client.get("/trends", params={"suite": "trend", "model": GPT}).text
    assert 'class="mark ' not in only_gpt
    assert f"{LOCAL} @" not in only_gpt


def test_a_run_still_recording_pages_in_plan_order_then_finishes(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run = many_run("live", 6)
    results = run.results
    recorder = store.recorder()
    recorder.start(run.model_copy(update={"results": [], "finished_at": None}))
    # Results arrive out of plan order, as concurrent calls finish them.
    for position in (4, 1, 0):
        recorder.add_at(results[position], position)
    page = store.matrix("live", MatrixFilter())
    assert [c.case_id for c in page.cases] == ["case-0000", "case-0001", "case-0004"]
    assert store.matrix("live", MatrixFilter(failed=True)).total == 2  # case-0000, case-0004
    for position in (5, 2, 3):
        recorder.add_at(results[position], position)
    assert store.matrix("live", MatrixFilter(), offset=4).total == 6  # nothing remembered
    recorder.finish(run)
    finished = store.matrix("live", MatrixFilter(), offset=2, limit=3)
    assert [c.case_id for c in finished.cases] == ["case-0002", "case-0003", "case-0004"]
    assert store.matrix("live", MatrixFilter(failed=True)).total == 2


def test_trends_compare_each_pair_of_finished_runs_once(store: RunStore) -> None:
    runs = store.figures(suite="trend")
    memo: dict[tuple[str, str], Marks] = {}
    marks = _changes(store, runs, memo)
    assert set(marks) == {("trend-2", LOCAL)}
    assert set(memo) == {("trend-0", "trend-1"), ("trend-1", "trend-2")}

    class Unreadable(RunStore):
        def load(self, ref: str) -> RunResult:
            raise AssertionError("a finished pair was compared again")

    assert _changes(Unreadable(store.path), runs, memo) == marks
    unfinished = [replace(f, finished=f.run_id != "trend-2") for f in runs]
    fresh: dict[tuple[str, str], Marks] = {}
    assert _changes(store, unfinished, fresh) == marks
    assert set(fresh) == {("trend-0", "trend-1")}  # trend-2 may still change
