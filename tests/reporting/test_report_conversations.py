"""Conversations everywhere a result goes: each report names the failing turn and keeps turns."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from promptum import Session
from promptum.cases import Turn
from promptum.checks import CheckDefinition
from promptum.cli import main
from promptum.gate import decide
from promptum.pytest_plugin._text import case_text, headline
from promptum.reporting import JsonlSink, load_run, render_report
from promptum.reporting._csv import COLUMNS
from promptum.values.run_result import CaseResult, RunResult
from promptum.values.tally import RunTally
from tests.reporting.conversation_samples import (
    FOUR_TURNS,
    PWN,
    SCRIPT,
    Said,
    conversation,
    conversation_run,
    mixed_run,
)
from tests.runner.conversation_support import NO_DISCOUNT_CODE, bot_case
from tests.support.cli import summary_text

_DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def _by_id(run: RunResult) -> dict[str, CaseResult]:
    return {result.case_id: result for result in run.results}


def _cells(page: str) -> list[dict[str, Any]]:
    match = _DATA.search(page)
    assert match is not None
    data = json.loads(match.group(1))
    cells: list[dict[str, Any]] = data["cells"]
    for cell in cells:
        cell["checks"] = data["checks"]
    return cells


# JSON, JSONL, the store ---------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_json_and_jsonl_carry_turns_and_load_back(tmp_path: Path, suffix: str) -> None:
    run = mixed_run()
    path = tmp_path / f"run{suffix}"
    path.write_text(render_report(run, suffix.lstrip(".")), encoding="utf-8")
    loaded = _by_id(load_run(path))
    for original in run.results:
        back = loaded[original.case_id]
        assert back.turns == original.turns
        assert back.failing_turn == original.failing_turn
        assert back.reasons == original.reasons
        assert back.grades == original.grades
    talk = loaded["remembers-the-name"]
    assert talk.turns is not None
    assert [turn.query for turn in talk.turns][2] == "What is my name?"
    assert talk.turns[2].completion.text == "I do not know your name."
    assert [turn.completion.error for turn in loaded["target-fails"].turns or ()] == [
        None,
        "HTTP 500 from target",
    ]
    assert loaded["single"].turns is None


def test_jsonl_sink_writes_turns_as_they_arrive(tmp_path: Path) -> None:
    run = mixed_run()
    sink = JsonlSink(tmp_path / "live.jsonl")
    sink.start(run)
    for result in run.results:
        sink.add(result)
    sink.finish(run)
    lines = [json.loads(line) for line in sink.path.read_text("utf-8").splitlines()]
    assert [len(line["turns"]) for line in lines[:5]] == [4, 2, 2, 2, 2]
    assert "turns" not in lines[5]  # the single request


def test_a_single_request_serializes_as_before() -> None:
    run = mixed_run()
    single = _by_id(run)["single"]
    alone = conversation_run(single)
    report = json.loads(render_report(alone, "json"))
    assert "turns" not in report["results"][0]
    assert "turns" not in render_report(alone, "jsonl")
    header = next(csv.reader(io.StringIO(render_report(alone, "csv"))))
    assert tuple(header) == COLUMNS
    assert all("d" not in cell and "z" not in cell for cell in _cells(render_report(alone, "html")))
    assert "turn" not in render_report(alone, "junit")
    assert "turn" not in render_report(alone, "md")


def test_the_store_keeps_turns_and_runs_show_json_has_them(tmp_path: Path) -> None:
    from promptum.store import RunStore
    from tests.store.test_store import record

    store = RunStore(tmp_path / "runs.sqlite")
    run = mixed_run()
    record(store, run)
    loaded = _by_id(store.load(run.run_id))
    for original in run.results:
        assert loaded[original.case_id].turns == original.turns
        assert loaded[original.case_id].reasons == original.reasons
    shown = CliRunner().invoke(
        main, ["runs", "show", run.run_id, "--db", str(store.path), "--json"]
    )
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    failures = {f["case_id"]: f for f in data["failures"]}
    talk = failures["remembers-the-name"]
    assert (talk["turns"], talk["failing_turn"]) == (4, 3)
    assert talk["reasons"] == ["turn 3: contains: expected to contain 'Ada'"]
    assert (failures["leaks-code"]["turns"], failures["leaks-code"]["failing_turn"]) == (2, None)
    assert "failing_turn" not in json.dumps(data["stats"])


def test_promptum_report_of_a_json_file_with_conversations(tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    source.write_text(render_report(mixed_run(), "json"), encoding="utf-8")
    for out in ("report.html", "junit.xml", "report.md"):
        result = CliRunner().invoke(main, ["report", str(source), "-o", str(tmp_path / out)])
        assert result.exit_code == 0, result.output
    assert "turn 3" in (tmp_path / "report.md").read_text("utf-8")
    assert 'message="turn 3: ' in (tmp_path / "junit.xml").read_text("utf-8")
    cells = _cells((tmp_path / "report.html").read_text("utf-8"))
    assert cells[0]["z"] == "turn 3"


# HTML -------------------------------------------------------------------------------------


def test_html_cell_holds_each_turn_with_its_grades_and_the_failing_turn() -> None:
    cells = {cell["i"]: cell for cell in _cells(render_report(mixed_run(), "html"))}
    talk = cells["remembers-the-name"]
    assert talk["z"] == "turn 3"
    assert [turn[0] for turn in talk["d"]] == ["pass", "pass", "fail", "pass"]
    assert talk["d"][2][1:4] == ["What is my name?", "I do not know your name.", ""]
    checks = talk["checks"]
    assert talk["d"][0][4] == []  # turn 1 has no grade
    (third,) = talk["d"][2][4]
    assert checks[third][:2] == ["contains", 0]
    assert "expected to contain 'Ada'" in checks[third][3]
    # The cell's own pills are the conversation's grades only.
    assert [checks[k][0] for k in talk["k"]] == ["not_contains"]
    assert talk["w"] == ["turn 3: contains: expected to contain 'Ada'"]
    assert talk["f"] == "400 ms · 40→20 tok · $0.0004 · 4 turns"  # summed over the turns
    assert talk["d"][2][5] == "100 ms · 10→5 tok · $0.0001"  # the turn's own call
    assert cells["leaks-code"]["z"] == "conversation"
    assert cells["polite"].get("z") is None
    failed = cells["target-fails"]
    assert failed["z"] == "turn 2"
    assert failed["d"][1][0] == "error"
    assert failed["d"][1][3] == "HTTP 500 from target"


def test_html_turns_with_hostile_text_stay_inert() -> None:
    page = render_report(mixed_run(), "html")
    for payload in (SCRIPT, PWN, "<img src=x"):
        assert payload not in page
    assert "<img" not in page
    assert len(re.findall(r"<script\b", page)) == 2  # the data block and the page's own code
    cells = {cell["i"]: cell for cell in _cells(page)}
    assert cells["hostile"]["d"][1][1] == PWN  # kept as data, written as text by the script


def test_html_turns_show_control_characters_not_send_them() -> None:
    talk = conversation("controls", [Said("ok\x00 then \x1b[31mred", "\x07bell", True)])
    page = render_report(conversation_run(talk), "html")
    assert re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", page) is None
    (cell,) = _cells(page)
    assert cell["d"][0][1:3] == ["ok\\x00 then \\x1b[31mred", "\\x07bell"]


# JUnit, Markdown, CSV, console, pytest ------------------------------------------------------


def test_junit_one_testcase_per_conversation_failure_names_the_turn() -> None:
    root = ET.fromstring(render_report(mixed_run(), "junit"))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert len(cases) == 6
    failure = cases["remembers-the-name"].find("failure")
    assert failure is not None
    assert failure.get("message") == "turn 3: 1 of 1 checks failed: contains"
    out = cases["remembers-the-name"].findtext("system-out") or ""
    assert "turn 3 check FAIL contains" in out
    assert "turn 3 (fail):\n  user: What is my name?\n  assistant: I do not know your name." in out
    assert "conversation check PASS not_contains" in out
    whole = cases["leaks-code"].find("failure")
    assert whole is not None
    assert whole.get("message") == "conversation: 1 of 1 checks failed: not_contains"
    error = cases["target-fails"].find("error")
    assert error is not None
    assert error.get("message") == "turn 2: HTTP 500 from target"
    assert "turn 2 (error):\n  user: And now?\n  error: HTTP 500 from target" in (
        cases["target-fails"].findtext("system-out") or ""
    )


def test_junit_names_the_first_failing_turn_not_the_worst_grade_kind() -> None:
    # Turn 2's judge-free check fails, turn 3 too: the message is about turn 2's grades.
    talk = conversation(
        "two-fail",
        [Said("a", "b", True), Said("c", "d", False), Said("e", "f", False)],
    )
    root = ET.fromstring(render_report(conversation_run(talk), "junit"))
    failure = next(root.iter("failure"))
    assert failure.get("message") == "turn 2: 1 of 1 checks failed: contains"
    assert failure.text == (
        "turn 2: contains: expected to contain 'Ada'\nturn 3: contains: expected to contain 'Ada'"
    )


def test_markdown_names_the_failing_turn_with_what_was_said() -> None:
    text = render_report(mixed_run(), "md")
    assert (
        "**remembers-the-name** on local/smollm2: turn 3: contains: expected to contain 'Ada' "
        "— turn 3: user: What is my name?; reply: I do not know your name." in text
    )
    assert "**leaks-code** on local/smollm2: conversation: not\\_contains" in text
    assert "turn 2: user: And now?; error: HTTP 500 from target" in text
    assert re.search(r"(?<!\\)<", text) is None  # every "<" of the hostile turn escaped
    assert "\\<img src=x" in text


def test_csv_adds_turn_columns_only_when_the_run_has_conversations() -> None:
    rows = list(csv.DictReader(io.StringIO(render_report(mixed_run(), "csv"))))
    assert list(rows[0])[-2:] == ["turns", "failing_turn"]
    by_id = {row["case_id"]: row for row in rows}
    assert (by_id["remembers-the-name"]["turns"], by_id["remembers-the-name"]["failing_turn"]) == (
        "4",
        "3",
    )
    assert by_id["leaks-code"]["failing_turn"] == "conversation"
    assert by_id["polite"]["failing_turn"] == ""
    assert (by_id["single"]["turns"], by_id["single"]["failing_turn"]) == ("", "")
    assert by_id["target-fails"]["error"] == "turn 2: HTTP 500 from target"


def test_console_summary_names_the_turn_and_shows_it() -> None:
    text = summary_text(mixed_run())
    assert "    - turn 3: contains: expected to contain 'Ada'" in text
    assert (
        "    turn 3 (fail):\n      user: What is my name?\n"
        "      assistant: I do not know your name." in text
    )
    assert "    - conversation: not_contains: expected to not contain 'SAVE20'" in text
    assert "    - error: turn 2: HTTP 500 from target" in text


def test_pytest_failure_text_names_the_turn_and_shows_the_transcript() -> None:
    talk = _by_id(mixed_run())["remembers-the-name"]
    assert headline(talk) == "turn 3: 1 of 1 checks failed: contains"
    text = case_text(talk)
    assert "    - turn 3: contains: expected to contain 'Ada'" in text
    assert "Transcript:\n    turn 1 (pass):\n      user: Hi, I'm Ada." in text
    assert "    turn 3 (fail):\n      user: What is my name?" in text
    assert "Response (" not in text


# Tally, gate, flaky, compare ----------------------------------------------------------------


def test_repeats_of_a_conversation_are_flaky_when_their_statuses_differ() -> None:
    passing = [Said("Hi, I'm Ada.", "Hello", None), Said("Name?", "Ada", True)]
    failing = [passing[0], Said("Name?", "No idea", False)]
    run = conversation_run(
        conversation("memory", passing, repeat=1),
        conversation("memory", failing, repeat=2),
        conversation("memory", passing, repeat=3),
        conversation("steady", passing, repeat=1),
        conversation("steady", passing, repeat=2),
    )
    tally = run.tally()
    assert tally.conversations == 5
    (flaky,) = tally.flaky()
    assert (flaky.case_id, flaky.passed, flaky.total) == ("memory", 2, 3)
    gate = decide(run)
    assert not gate.passed
    assert "🔀 **memory** on local/smollm2: passed 2 of 3 repeats" in render_report(run, "md")
    assert RunTally.of(_by_id(mixed_run()).values()).conversations == 5


def test_compare_pairs_conversations_by_id_with_their_summed_figures() -> None:
    from promptum.comparison_figures import compare_runs

    before = conversation_run(
        conversation("memory", FOUR_TURNS[:2], latency=100.0),
        conversation("leaks-code", FOUR_TURNS[:2], whole=True, latency=100.0),
    )
    after = conversation_run(
        conversation("memory", FOUR_TURNS, latency=300.0, cost=0.001),
        conversation("leaks-code", FOUR_TURNS[:2], whole=True, latency=300.0, cost=0.001),
    )
    after = after.model_copy(update={"run_id": "conv-run-2"})
    (pair,) = compare_runs(before, after).models
    assert [change.case_id for change in pair.of_kind("regressed")] == ["memory"]
    assert [change.case_id for change in pair.changes] == ["memory"]
    assert pair.a.stats.latency_p50_ms == 200.0  # two turns of 100 ms, summed per conversation
    assert pair.b.stats.latency_p50_ms == 900.0  # four turns of 300 ms / two of 300 ms: median
    assert pair.b.stats.cost_usd == pytest.approx(0.006)  # 4 + 2 turns at 0.001
    assert pair.latency_delta_ms == 700.0


def test_viewer_case_page_names_the_failing_turn(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from promptum.store import RunStore
    from promptum.viewer import create_app
    from tests.store.test_store import record

    store = RunStore(tmp_path / "runs.sqlite")
    record(store, mixed_run())
    client = TestClient(create_app(store), base_url="http://127.0.0.1")
    page = client.get("/cases", params={"id": "remembers-the-name"}).text
    assert "4 turns; turn 3 failed first" in page
    assert "turn 3: contains: expected to contain &#39;Ada&#39;" in page
    whole = client.get("/cases", params={"id": "leaks-code"}).text
    assert "2 turns; the conversation failed" in whole
    hostile = client.get("/cases", params={"id": "hostile"}).text
    assert "2 turns; turn 2 failed first" in hostile
    assert SCRIPT not in hostile
    assert PWN not in hostile


# End to end: a conversation the runner ran -------------------------------------------------


def test_a_conversation_the_runner_ran_is_named_at_its_failing_turn_everywhere(
    tmp_path: Path,
) -> None:
    def forgetful(query: str) -> str:
        # Answers only the message it was sent: it forgets the name by turn 3.
        return "Nice to meet you, Ada." if "Ada" in query else f"You asked: {query}"

    has_ada = (CheckDefinition(type="contains", value="Ada"),)
    case = bot_case(
        forgetful,
        Turn(query="Hi, I'm Ada."),
        Turn(query="Hello again, I'm Ada.", checks=has_ada),
        Turn(query="What is my name?", checks=has_ada),
        Turn(query="Bye."),
        case_id="remembers-the-name",
        grading=NO_DISCOUNT_CODE,
    )
    session = Session()
    session.add_test(case)
    run = session.run()
    (result,) = run.results
    assert result.status == "fail"
    assert result.failing_turn == 3
    assert result.turns is not None
    # The reports round each turn's latency to 0.1 ms, as they round the result's.
    written = [
        turn.model_copy(
            update={
                "completion": turn.completion.model_copy(
                    update={"latency_ms": round(turn.completion.latency_ms or 0, 1)}
                )
            }
        )
        for turn in result.turns
    ]
    for kind in ("json", "jsonl"):
        path = tmp_path / f"run.{kind}"
        path.write_text(render_report(run, kind), encoding="utf-8")
        (back,) = load_run(path).results
        assert back.turns == written
    assert 'message="turn 3: 1 of 1 checks failed: contains"' in render_report(run, "junit")
    assert "turn 3: user: What is my name?; reply: You asked: What is my name?" in render_report(
        run, "md"
    )
    (row,) = csv.DictReader(io.StringIO(render_report(run, "csv")))
    assert (row["turns"], row["failing_turn"]) == ("4", "3")
    (cell,) = _cells(render_report(run, "html"))
    assert cell["z"] == "turn 3"
    assert [turn[2] for turn in cell["d"]] == [
        "Nice to meet you, Ada.",
        "Nice to meet you, Ada.",
        "You asked: What is my name?",
        "You asked: Bye.",
    ]
