"""The plan's one pass over a data file's rows: rows sharing their settings are surveyed and
hashed from what they share, with the figures and fingerprint a case-by-case pass gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from promptum.cases import GenerationParams, Grading, JudgeConfig, TestCase
from promptum.checks import CheckDefinition
from promptum.runner import Survey, plan_fingerprint
from promptum.session import Session
from promptum.suites import load_suite
from promptum.values.completion import ToolCall
from promptum.values.run_result import Message

CHECKS = (CheckDefinition(type="contains", value="Paris"),)
PARAMS = GenerationParams(temperature=0.0)
MODELS = ("m1",)


def _row(index: int) -> TestCase:
    return TestCase(
        id=f"row-{index}",
        messages=(Message(role="user", content=f"q {index}"),),
        models=MODELS,
        params=PARAMS,
        suite="s",
        grading=Grading(checks=CHECKS),
    )


def _tool_row(index: int) -> TestCase:
    messages = (
        Message(role="user", content=f"weather {index} ☀"),
        Message(
            role="assistant",
            content="",
            tool_calls=(ToolCall(name="w", arguments={"i": index}, id=f"c{index}"),),
        ),
        Message(role="tool", content=f"sunny {index}", tool_call_id=f"c{index}"),
    )
    return replace(_row(index), id=f"rów-{index}", messages=messages, vars={"i": index})


def test_rows_replaying_tool_calls_keep_the_fingerprint_earlier_versions_gave() -> None:
    # Known answer from 368f0ee, which dumped every message whole.
    assert plan_fingerprint([_tool_row(i) for i in range(3)]) == "33709d2206619b0b"


def test_a_row_after_rows_sharing_their_settings_is_surveyed_in_full() -> None:
    judged = JudgeConfig("judge/model", threshold=0.5)
    # Each changed row follows a plain one, with which it shares all but what it changes.
    changed = [
        replace(_row(10), repeat=3),
        replace(_row(11), grading=replace(_row(11).grading, judge=judged)),
        replace(_row(12), params=GenerationParams(temperature=1.0)),
        replace(_row(13), variant="v2"),
        replace(_row(14), models=("m2", "m1")),
    ]
    cases = [_row(0), _row(1)]
    for index, row in enumerate(changed):
        cases += [row, _row(2 + index)]
    survey = Survey.of(cases)
    assert list(survey.models) == ["m1", "m2"]
    assert survey.count == 7 + 3 + 1 + 1 + 1 + 2
    assert survey.repeats == 3
    assert survey.judges == {("judge/model", 0.5)}
    assert survey.params == {
        (("temperature", t), ("max_tokens", None), ("seed", None)) for t in (0.0, 1.0)
    }
    assert survey.variants


ROWS_SUITE = """\
name: s
models: [m1, m2]
system: "Be terse."
prompt: "Say {{ word }}"
defaults:
  checks:
    - {type: contains, value: a}
    - {type: expr, value: "vars['limit'] != 'x'"}
cases_from: rows.csv
"""


def test_a_data_files_rows_read_for_the_plan_keep_the_fingerprint_earlier_versions_gave(
    tmp_path: Path,
) -> None:
    rows = "".join(f'r{n},wörd "{n}",{n % 3}\n' for n in range(40))
    (tmp_path / "rows.csv").write_text("id,word,limit\n" + rows, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(ROWS_SUITE, encoding="utf-8")
    session = Session()
    session.add_suite(load_suite(tmp_path / "suite.yaml"))
    session.override(models=["o/m"], repeat=2)  # `-m o/m --repeat 2`: the rows share it
    survey = Survey.of(session.planned_cases(), fingerprint=True)
    # Known answer from 368f0ee, which made every case and hashed it whole.
    assert survey.fingerprint == "c0fae2f1cb2a6c0b"
    assert plan_fingerprint(list(session.planned_cases())) == survey.fingerprint
    assert (survey.count, list(survey.models), survey.repeats) == (80, ["o/m"], 2)
