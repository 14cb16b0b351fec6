"""The matrix on a prompt engineer's day: conversations, tool calls, columns, shared links."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from promptum.store import MatrixFilter, RunStore
from promptum.values.completion import Completion, ToolCall
from promptum.values.run_result import CaseResult, Message, RunResult
from promptum.viewer import create_app
from promptum.viewer._diff import word_diff
from promptum.viewer._trends import Budget, Marks, _changes
from tests.reporting.conversation_samples import (
    FOUR_TURNS,
    HOSTILE,
    IMG,
    MODEL,
    PWN,
    SCRIPT,
    Said,
    conversation,
    conversation_run,
)
from tests.store.test_store import record
from tests.viewer.matrix_samples import many_run, serving, trend_runs

OTHER = "openai/gpt-4o-mini"


def tool_result() -> CaseResult:
    """A single request answered with a tool call and no text."""
    call = ToolCall(name="get_weather", arguments={"city": "Paris"})
    return CaseResult(
        case_id="weather",
        model=MODEL,
        status="pass",
        messages=[Message(role="user", content="Weather in Paris?")],
        completion=Completion(model=MODEL, tool_calls=(call,)),
    )


def conversations() -> list[CaseResult]:
    return [
        conversation("remembers-the-name", FOUR_TURNS, whole=True),
        conversation("remembers-the-name", [*FOUR_TURNS[:2], FOUR_TURNS[3]], model=OTHER),
        conversation("hostile", HOSTILE),
        conversation("broke", [Said("Hi", "Hello"), Said("More?", "", error="HTTP 503: busy")]),
        tool_result(),
    ]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RunStore:
    store = RunStore(tmp_path_factory.mktemp("workday") / "runs.sqlite")
    record(store, conversation_run(*conversations()))
    record(store, hostile_run())
    return store


def hostile_run() -> RunResult:
    """A run whose suite, model, variant, case id and tag each carry a payload."""
    bad = conversation(SCRIPT, HOSTILE, model=f"x/{IMG}").model_copy(
        update={"suite": PWN, "variant": IMG, "tags": [PWN]}
    )
    run = conversation_run(bad)
    return run.model_copy(update={"run_id": "hostile-run", "suite": PWN})


@pytest.fixture(scope="module")
def client(store: RunStore) -> Iterator[TestClient]:
    with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
        yield client


def cell(client: TestClient, case: str, column: int = 0) -> dict[str, Any]:
    body = client.get("/api/runs/conv-run/matrix").json()
    (row,) = [row for row in body["rows"] if row["case"] == case]
    entry: dict[str, Any] = row["cells"][column][0]
    return entry


def test_a_conversation_cell_shows_its_first_failing_turn(client: TestClient) -> None:
    entry = cell(client, "remembers-the-name")
    assert entry["turn"] == {
        "number": 3,
        "of": 4,
        "failing": True,
        "query": "What is my name?",
    }
    assert entry["text"] == "I do not know your name."  # not the last reply, "Bye, Ada."
    names = [(g["name"], g["passed"]) for g in entry["grades"]]
    assert names == [
        ("turn 2: contains", True),
        ("turn 3: contains", False),
        ("turn 4: contains", True),
        ("not_contains", True),
    ]
    passing = cell(client, "remembers-the-name", column=1)
    assert passing["turn"] == {"number": 3, "of": 3, "failing": False, "query": "Thanks, bye."}
    assert passing["text"] == "Bye, Ada."


def test_a_conversation_ending_on_an_error_shows_that_turns_error(client: TestClient) -> None:
    entry = cell(client, "broke")
    assert entry["status"] == "error"
    assert entry["turn"]["number"] == 2
    assert entry["error"] == "HTTP 503: busy"


def test_a_tool_call_shows_in_its_cell(client: TestClient) -> None:
    entry = cell(client, "weather")
    assert entry["tools"] == ["get_weather(city='Paris')"]
    assert entry["turn"] is None


def test_search_finds_a_word_of_an_earlier_turn(store: RunStore) -> None:
    # "Sunny" is turn 2's reply only: the result's own text is the last reply.
    page = store.matrix("conv-run", MatrixFilter(search="sunny"))
    assert [c.case_id for c in page.cases] == ["remembers-the-name"]


def test_columns_follow_the_plan_not_the_order_calls_finished(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    plan = [
        conversation("c", FOUR_TURNS[:1], model=model).model_copy(update={"variant": variant})
        for model in ("m/a", "m/b")
        for variant in ("plain", "polite")
    ]
    run = conversation_run(*plan)
    recorder = store.recorder()
    recorder.start(run.model_copy(update={"results": [], "finished_at": None}))
    for position in (3, 1, 2, 0):  # concurrent calls finish in any order
        recorder.add_at(plan[position], position)
    expected = [("m/a", "plain"), ("m/a", "polite"), ("m/b", "plain"), ("m/b", "polite")]
    assert store.matrix("conv-run", MatrixFilter()).columns == expected  # still recording
    recorder.finish(run)
    assert store.matrix("conv-run", MatrixFilter()).columns == expected  # finished


def test_a_huge_offset_on_a_run_still_recording_is_an_empty_page(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run = many_run("live", 3)
    recorder = store.recorder()
    recorder.start(run.model_copy(update={"results": [], "finished_at": None}))
    recorder.add_at(run.results[0], 0)
    with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
        answer = client.get("/api/runs/live/matrix", params={"offset": str(10**30)})
    assert answer.status_code == 200
    assert answer.json()["total"] == 1
    assert answer.json()["rows"] == []


def test_trends_and_matrix_escape_suite_model_variant_and_tag(client: TestClient) -> None:
    trends = client.get("/trends").text
    matrix = client.get("/runs/hostile-run/matrix").text
    for payload in (SCRIPT, IMG, PWN):
        assert payload not in trends
        assert payload not in matrix
    assert "&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;" in trends  # the suite
    api = client.get("/api/runs/hostile-run/matrix").json()
    assert api["columns"][0]["label"] == f"x/{IMG} · {IMG}"  # JSON, drawn as text


def test_trends_compare_the_newest_runs_first_within_a_budget(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    for run in trend_runs():  # three runs of 60 results; trend-2 falls
        record(store, run)
    runs = store.figures(suite="trend")
    memo: dict[tuple[str, str], Marks] = {}
    budget = Budget(left=150)  # the newest pair (120 results) fits, the older one not
    marks = _changes(store, runs, memo, budget)
    assert set(marks) == {("trend-2", "local/smollm2")}
    assert set(memo) == {("trend-1", "trend-2")}
    assert budget.put_off == ["trend-1"]
    assert budget.left == 30
    later = Budget(left=150)  # the next view compares the pair put off
    assert _changes(store, runs, memo, later) == marks
    assert set(memo) == {("trend-0", "trend-1"), ("trend-1", "trend-2")}
    assert later.put_off == []


def test_the_word_diff_of_a_long_repetitive_answer_stays_word_by_word() -> None:
    # difflib's matching took 45 s on 1,500 such words and minutes on more.
    before = " ".join(["the cat sat on the mat."] * 2_000)
    after = before.replace("mat.", "hat.", 30)
    ops = word_diff(before, after)
    assert "".join(text for op, text in ops if op != "insert") == before
    assert "".join(text for op, text in ops if op != "delete") == after
    assert [text for op, text in ops if op == "delete"] == ["mat."] * 30
    assert [text for op, text in ops if op == "insert"] == ["hat."] * 30


def test_trend_figures_of_a_finished_run_are_read_once(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    results = [conversation(f"c{i}", FOUR_TURNS[:1], latency=float(i)) for i in range(1, 21)]
    run = conversation_run(*results)
    recorder = store.recorder()
    recorder.start(run.model_copy(update={"results": [], "finished_at": None}))
    for position, result in enumerate(results[:10]):
        recorder.add_at(result, position)
    (live,) = store.figures()
    assert (live.total, live.latency_p95, live.finished) == (10, 10.0, False)
    for position, result in enumerate(results[10:], start=10):
        recorder.add_at(result, position)
    assert store.figures()[0].total == 20  # still recording: read again
    recorder.finish(run)
    (done,) = store.figures()
    assert (done.total, done.latency_p95, done.finished) == (20, 19.0, True)  # nearest rank
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE results SET latency_ms = 5000")
    assert store.figures() == [done]  # remembered: a finished run's results do not change


def shows(page: Any, text: str) -> None:
    """Wait until the count line says `text` (a function: the page's policy forbids eval)."""
    page.wait_for_function(
        "t => document.getElementById('shown').textContent.endsWith(t)", arg=text
    )


@pytest.mark.slow
def test_filters_live_in_the_address_and_come_back(store: RunStore, browser: Any) -> None:
    with serving(store) as url:
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("dialog", lambda dialog: (errors.append(dialog.message), dialog.dismiss()))
        page.goto(url + "/runs/conv-run/matrix")
        shows(page, "of 4 cases")
        turn = page.locator("#grid-body tr.mrow", has_text="remembers-the-name").locator(".turn")
        assert turn.first.inner_text() == "turn 3 of 4 failed · user: What is my name?"
        page.locator("#grid-body tr.mrow", has_text="weather").locator(".tool").wait_for()
        page.check("#f-failed")
        page.fill("#q", "sunny")
        page.wait_for_url("**/matrix?failed=1&q=sunny")
        shows(page, "of 1 cases")
        page.locator("#grid-body a.status").first.click()
        page.wait_for_url("**/result?**")
        page.go_back()
        shows(page, "of 1 cases")
        assert page.is_checked("#f-failed")
        assert page.input_value("#q") == "sunny"
        # A shared link opens on the same filters.
        fresh = context.new_page()
        fresh.goto(url + "/runs/conv-run/matrix?errored=1")
        shows(fresh, "of 1 cases")
        assert fresh.is_checked("#f-errored")
        fresh.goto(url + "/runs/conv-run/matrix?offset=500")  # past the end: the first page
        shows(fresh, "1–4 of 4 cases")
        assert fresh.url.endswith("/runs/conv-run/matrix")
        # Payloads in every field, in the matrix and the trends' SVG: shown, never run.
        fresh.goto(url + "/runs/hostile-run/matrix?q=%3Cscript%3E")
        fresh.wait_for_function("() => document.querySelector('.case-id') !== null")
        assert fresh.locator(".case-id").inner_text() == f"{PWN}/{SCRIPT}"
        fresh.keyboard.press("Enter")  # opens the row: the long texts in full
        fresh.hover(".pill")
        fresh.goto(url + "/trends")
        fresh.hover("svg circle")
        assert fresh.evaluate("window.__pwned") is None
        assert page.evaluate("window.__pwned") is None
        assert errors == []
        context.close()
