"""Cases held compactly share no list or dict a user's code can change (review of H3)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from promptum.cases import GenerationParams, HeldCases, TestCase
from promptum.cli import main
from promptum.suites import load_suite
from promptum.values.run_result import Message

TARGET = """\
def answer(query, items, options):
    items.append("seen")  # a target changing what it was given
    options["calls"] = options.get("calls", 0) + 1
    return f"{query} {len(items)} {options['calls']}"
"""

CASE = """\
  - id: case-{i}
    query: hi
    vars: {{items: [1], options: {{k: 1}}, n: 1}}
    checks: [{{type: exact_match, value: "hi 2 1"}}]
"""


def _suite(folder: Path, cases: int) -> Path:
    (folder / "app.py").write_text(TARGET, encoding="utf-8")
    suite = folder / "suite.yaml"
    body = "".join(CASE.format(i=i) for i in range(cases))
    suite.write_text(f"target: app.py:answer\ntest_cases:\n{body}", encoding="utf-8")
    return suite


def test_a_target_changing_its_list_changes_no_other_case(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 3)
    report = tmp_path / "report.json"
    done = CliRunner().invoke(
        main,
        ["run", str(suite), "--no-cache", "--concurrency", "1", "--no-store", "-o", str(report)],
    )
    assert done.exit_code == 0, done.output
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert [r["completion"]["text"] for r in results] == ["hi 2 1"] * 3


def test_equal_lists_and_dicts_inside_vars_are_each_cases_own(tmp_path: Path) -> None:
    cases = list(load_suite(_suite(tmp_path, 3)).cases)
    first, second = cases[0].vars, cases[1].vars
    assert first == second
    assert first["items"] is not second["items"]
    assert first["options"] is not second["options"]


def test_a_mapping_of_texts_and_numbers_alike_is_still_shared() -> None:
    hi = (Message(role="user", content="Hi"),)
    flat = {"a": 1, "b": "two", "c": 3.0}
    held = HeldCases(
        [
            TestCase(id="f", messages=hi, vars=flat, params=GenerationParams(extra={"k": 1})),
            TestCase(id="g", messages=hi, vars=dict(flat), params=GenerationParams(extra={"k": 1})),
            TestCase(id="h", messages=hi, vars={**flat, "d": [1]}),
        ]
    )
    assert held[1].vars is flat  # nothing inside it to change: the first case's dict serves
    assert held[1].params is held[0].params
    assert held[2].vars["d"] == [1]
