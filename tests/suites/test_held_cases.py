"""Inline cases held compactly (`HeldCases`) and a suite's cases read `Packed` until built."""

from __future__ import annotations

import datetime
import gc
from dataclasses import replace
from pathlib import Path

from promptum import ToolCall
from promptum.cases import GenerationParams, Grading, HeldCases, TestCase
from promptum.checks import CheckDefinition
from promptum.runner import plan_fingerprint
from promptum.suites import load_suite
from promptum.suites._yaml_reader import Packed, read_yaml, unpacked
from promptum.values.run_result import Message

SUITE = """\
name: held
models: [local/smollm2]
vars: {shared: 1}
defaults:
  checks:
    - {type: max_length, value: 200}
test_cases:
  - id: first
    query: "What is {{ shared }} + 1?"
    tags: [math]
    checks: [{type: contains, value: "2"}]
  - id: ints
    query: plain
    vars: {n: 1}
    params: {temperature: 1}
    checks: [{type: contains, value: "x"}]
  - id: floats
    query: plain
    vars: {n: 1.0}
    params: {temperature: 1.0}
    checks: [{type: contains, value: "x"}]
  - id: bools
    query: plain
    vars: {n: true}
    tags: [math]
    checks: [{type: contains, value: "x"}]
  - id: conversation-so-far
    messages:
      - {role: system, content: "Be brief."}
      - {role: user, content: "Hi"}
      - {role: assistant, content: "Hello"}
      - {role: user, content: "Again?"}
    checks: [{type: min_length, value: 1}]
  - id: dated
    query: "When?"
    vars: {day: 2024-01-02}
    checks: [{type: min_length, value: 1}]
  - &anchored
    id: anchored
    query: "Anchored"
    tags: [other, math]
    checks: [{type: min_length, value: 1}]
  - {<<: *anchored, id: merged}
"""


def _suite(tmp_path: Path, text: str = SUITE) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _exact(case: TestCase) -> str:
    """The case's repr with each message's set fields: what tells 1 from 1.0 from True."""
    return repr(case) + repr([message.model_fields_set for message in case.messages])


def test_each_case_read_back_is_the_case_built_with_the_same_types(tmp_path: Path) -> None:
    cases = list(load_suite(_suite(tmp_path)).cases)
    by_id = {case.id: case for case in cases}
    assert [case.id for case in cases] == [
        "first", "ints", "floats", "bools", "conversation-so-far", "dated", "anchored", "merged"
    ]  # fmt: skip
    # Values equal to the first case's, but of another type, are the case's own.
    assert [type(by_id[name].vars["n"]) for name in ("ints", "floats", "bools")] == [
        int,
        float,
        bool,
    ]
    assert type(by_id["ints"].params.temperature) is type(by_id["floats"].params.temperature)
    assert by_id["dated"].vars["day"] == datetime.date(2024, 1, 2)
    assert [m.role for m in by_id["conversation-so-far"].messages] == [
        "system",
        "user",
        "assistant",
        "user",
    ]
    assert by_id["merged"].tags == ("other", "math")
    assert by_id["first"].messages == (Message(role="user", content="What is 1 + 1?"),)
    assert by_id["ints"].source == f"{tmp_path / 'suite.yaml'}:12"
    # Held again from what was read: the same cases, field for field.
    again = HeldCases(cases)
    assert list(map(_exact, again)) == list(map(_exact, cases))
    assert [_exact(again[i]) for i in range(-len(cases), 0)] == list(map(_exact, cases))


def test_cases_held_keep_what_a_rebuilt_field_would_lose() -> None:
    calls = (ToolCall(id="c1", name="lookup", arguments={"q": "x"}),)
    replayed = (
        Message(role="user", content="Find x"),
        Message(role="assistant", content="", tool_calls=calls),
        Message(role="tool", content="x is 1", tool_call_id="c1"),
    )
    explicit = (Message(role="user", content="Hi", tool_calls=None, tool_call_id=None),)
    cases = [
        TestCase(id="a", messages=(Message(role="user", content="Hi"),), source="f.yaml:3"),
        TestCase(id="b", messages=replayed, source="f.yaml:9"),
        TestCase(id="c", messages=explicit, source="other.yaml:9"),
        TestCase(id="d", messages=(Message(role="user", content="Hi"),), source="f.yaml:09"),
        TestCase(
            id="e",
            messages=(Message(role="user", content="Hi"),),
            params=GenerationParams(temperature=0.5, extra={"top_k": 3}),
            vars={"n": 2},
            source=None,
        ),
    ]
    held = HeldCases(cases)
    assert len(held) == 5
    assert list(map(_exact, held)) == list(map(_exact, cases))
    assert held[2].messages[0].model_fields_set == {"role", "content", "tool_calls", "tool_call_id"}


def test_values_equal_to_the_first_cases_but_not_alike_are_held() -> None:
    hi = (Message(role="user", content="Hi"),)
    nested = {"a": 1, "b": [1, {"c": True}]}
    cases = [  # equal to the first case's vars, but in another order or of other types
        TestCase(id="f", messages=hi, vars=nested, params=GenerationParams(seed=1)),
        TestCase(id="g", messages=hi, vars={"b": [1, {"c": True}], "a": 1}),
        TestCase(id="h", messages=hi, vars={"a": 1, "b": [1.0, {"c": True}]}),
        TestCase(id="i", messages=hi, vars={"a": 1, "b": [1, {"c": 1}]}),
        TestCase(id="j", messages=hi, vars={"a": True, "b": [1, {"c": True}]}),
        TestCase(id="k", messages=hi, vars={"a": 1, "b": (1, {"c": True})}),
        TestCase(id="l", messages=hi, vars={"a": 1, "b": [1, {"c": True}]}),
        TestCase(id="m", messages=hi, params=GenerationParams(seed=True)),
    ]
    held = HeldCases(cases)
    assert list(map(_exact, held)) == list(map(_exact, cases))
    assert list(held[1].vars) == ["b", "a"]
    # Truly alike, but a list inside: each case keeps its own (a target may change it).
    assert held[6].vars["b"] is not nested["b"]


def test_a_suite_holds_no_case_object_between_reads(tmp_path: Path) -> None:
    text = "name: many\nmodels: local/smollm2\ntest_cases:\n" + "".join(
        f"  - {{id: c{i}, query: 'Q {i}?', checks: [{{type: contains, value: '{i}'}}]}}\n"
        for i in range(300)
    )
    path = _suite(tmp_path, text)
    gc.collect()
    before = sum(type(thing) is TestCase for thing in gc.get_objects())
    suite = load_suite(path)
    gc.collect()
    held = sum(type(thing) is TestCase for thing in gc.get_objects()) - before
    assert held <= 1  # the first case's fields are kept, not 300 cases
    cases = list(suite.cases)
    assert [case.id for case in cases] == [f"c{i}" for i in range(300)]
    assert cases[299].messages[0].content == "Q 299?"
    assert cases[299].grading.checks[0].value == "299"
    assert cases[299].source == f"{path}:{3 + 300}"


def test_fingerprint_of_held_cases_is_that_of_the_cases_built(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path))
    built = list(suite.cases)
    assert plan_fingerprint(suite.cases) == plan_fingerprint(built)


def test_cases_read_packed_unpack_to_what_reading_them_whole_gives(tmp_path: Path) -> None:
    path = _suite(tmp_path)
    whole, _ = read_yaml(path)
    packed, _ = read_yaml(path, packed=True)
    kinds = [type(case) for case in packed["test_cases"]]
    assert kinds.count(Packed) == 5  # plain cases; a date, an anchor and a merge key are not
    assert [unpacked(case) for case in packed["test_cases"]] == whole["test_cases"]
    assert {key: value for key, value in packed.items() if key != "test_cases"} == {
        key: value for key, value in whole.items() if key != "test_cases"
    }


def test_a_binary_value_is_not_taken_for_a_packed_case(tmp_path: Path) -> None:
    text = SUITE.replace('    query: "When?"\n', '    query: "When?"\n    blob: !!binary aGk=\n')
    packed, _ = read_yaml(_suite(tmp_path, text), packed=True)
    dated = packed["test_cases"][5]
    assert type(dated) is dict
    assert dated["blob"] == b"hi"
    assert unpacked(dated) is dated


def test_a_case_with_its_own_checks_holds_them_not_a_grading() -> None:
    hi = (Message(role="user", content="Hi"),)
    shared = CheckDefinition(type="max_length", value=200)
    first = Grading(checks=(CheckDefinition(type="contains", value="1"), shared), threshold=0.5)
    cases = [
        TestCase(id="a", messages=hi, grading=first),
        TestCase(id="b", messages=hi, grading=replace(first, checks=(shared,))),
        TestCase(id="c", messages=hi, grading=replace(first, threshold=0.75)),
    ]
    held = HeldCases(cases)
    assert list(map(_exact, held)) == list(map(_exact, cases))
    kept = [value for record in held._records for value in record[1:]]
    assert (shared,) in kept  # b: its checks only
    assert not any(isinstance(value, Grading) and value.checks == (shared,) for value in kept)
    assert cases[2].grading in kept  # c: another threshold, so its whole grading
