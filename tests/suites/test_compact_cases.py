"""Cases held compactly: CSV/JSONL rows read lazily, checks compiled once, bounded memory."""

from __future__ import annotations

import dataclasses
import gc
import textwrap
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from promptum.cases import TestCase
from promptum.checks import CheckDefinition
from promptum.checks._registry import register_check_type, unregister_check_type
from promptum.errors import ConfigError
from promptum.session import Prompt, Session
from promptum.suites import Suite, load_suite, load_suites
from promptum.values.completion import Completion
from tests.support.cli import write

# A byte-order mark, CRLF line ends, a blank line, a quoted cell over two lines, text
# that is not ASCII and a row without an id: what spreadsheets write.
TRICKY_CSV = (
    "\ufeffid,query,answer,city\r\n"
    'q1,"Hello, ""world""",42,Paris\r\n'
    "\r\n"
    'q2,"two\r\nlines é",7,Zürich\r\n'
    ",no id here,3,Oslo\r\n"
)

HEAD = """\
name: golden
models: [fault/a, fault/b]
prompts:
  plain: "{{ query }} ({{ city }})"
  polite: "Please: {{ query }}"
defaults:
  checks:
    - {type: max_length, value: 200}
    - {type: not_contains, value: "{{ city }}!"}
"""

SUITE = (
    HEAD
    + """\
columns:
  answer: {type: contains}
cases_from: rows.csv
"""
)

# The same cases written inline, which are built once and held.
INLINE = (
    HEAD
    + """\
test_cases:
  - {id: q1, query: 'Hello, "world"', vars: {answer: "42", city: Paris},
     checks: [{type: contains, value: "42"}]}
  - {id: q2, query: "two\\r\\nlines é", vars: {answer: "7", city: Zürich},
     checks: [{type: contains, value: "7"}]}
  - {id: rows-3, query: no id here, vars: {answer: "3", city: Oslo},
     checks: [{type: contains, value: "3"}]}
"""
)


def _fields(case: TestCase) -> dict[str, Any]:
    """Every field of a case, checks as their definitions, but where it was read from."""
    fields = {f.name: getattr(case, f.name) for f in dataclasses.fields(case)}
    grading = {f.name: getattr(case.grading, f.name) for f in dataclasses.fields(case.grading)}
    grading["checks"] = [check._key() for check in case.grading.checks]
    fields["grading"] = grading
    del fields["source"]
    return fields


def test_csv_rows_read_lazily_give_the_cases_written_inline(tmp_path: Path) -> None:
    write(tmp_path / "csv" / "rows.csv", TRICKY_CSV)
    lazy = load_suite(write(tmp_path / "csv" / "suite.yaml", SUITE))
    held = load_suite(write(tmp_path / "inline" / "suite.yaml", INLINE))

    assert [_fields(case) for case in lazy.cases] == [_fields(case) for case in held.cases]
    assert [case.source for case in lazy.cases][::2] == [
        f"{tmp_path / 'csv' / 'rows.csv'}:{line}" for line in (2, 4, 6)
    ]
    assert lazy.cases[1].messages[-1].content == 'Please: Hello, "world"'
    assert lazy.cases[2].messages[-1].content == "two\r\nlines é (Zürich)"


def test_a_row_is_built_the_same_however_it_is_reached(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", TRICKY_CSV)
    cases = load_suite(write(tmp_path / "suite.yaml", SUITE)).cases
    in_order = list(cases)

    assert len(cases) == 6
    assert [cases[i] for i in range(6)] == in_order
    assert cases[-1] == in_order[-1]
    assert cases[1:5:2] == in_order[1:5:2]
    assert list(cases) == in_order  # a second pass reads the file again
    with pytest.raises(IndexError):
        cases[6]


@pytest.mark.parametrize("block_bytes", [1 << 20, 100])
def test_rows_read_in_blocks_are_the_rows_read_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block_bytes: int
) -> None:
    # Several blocks of rows, with blank lines, rows of two lines and text that is not ASCII;
    # blocks of a few rows each when their size caps them.
    monkeypatch.setattr("promptum.suites._data_files._BLOCK_BYTES", block_bytes)
    groups = (
        f'a{n},"Hello, ""world""",Paris\r\n\r\nb{n},"two\r\nlines é",Zürich\r\nc{n},é {n},Oslo\r\n'
        for n in range(300)
    )
    write(tmp_path / "rows.csv", "id,text,city\r\n" + "".join(groups))
    suite = "models: [fault/a]\nprompt: '{{ text }} ({{ city }})'\ncases_from: rows.csv\n"
    cases = load_suite(write(tmp_path / "suite.yaml", suite)).cases

    in_order = list(cases)
    assert len(in_order) == 900
    picked = (0, 255, 256, 257, 511, 512, 899)
    assert [cases[i] for i in picked] == [in_order[i] for i in picked]
    assert [case.messages[-1].content for case in in_order[255:258]] == [
        'Hello, "world" (Paris)',
        "two\r\nlines é (Zürich)",
        "é 85 (Oslo)",
    ]
    assert in_order[899].source == f"{tmp_path / 'rows.csv'}:{6 + 5 * 299}"


def test_jsonl_rows_read_lazily_keep_their_lines(tmp_path: Path) -> None:
    write(
        tmp_path / "rows.jsonl",
        '{"id": "a", "query": "hi {{ who }}", "vars": {"who": "you"}}\n'
        "\n   \n"
        '{"query": "second é", "tags": ["t"]}\r\n'
        '{"query": "third", "checks": [{"type": "contains", "value": "x"}]}',
    )
    suite = load_suite(write(tmp_path / "suite.yaml", "models: fault/a\ncases_from: rows.jsonl\n"))

    assert [(c.id, c.messages[-1].content, c.source) for c in suite.cases] == [
        ("a", "hi you", f"{tmp_path / 'rows.jsonl'}:1"),
        ("rows-2", "second é", f"{tmp_path / 'rows.jsonl'}:4"),
        ("rows-3", "third", f"{tmp_path / 'rows.jsonl'}:5"),
    ]
    assert suite.cases[1].tags == ("t",)


def test_a_bad_row_is_reported_at_its_line_before_any_case_is_run(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", TRICKY_CSV + "q4,{{ nope }},1,Rome\r\n")
    with pytest.raises(ConfigError) as error:
        load_suite(write(tmp_path / "suite.yaml", SUITE))
    assert f"{tmp_path / 'rows.csv'}:7: query: template variable error" in str(error.value)

    write(tmp_path / "rows.jsonl", '{"query": "fine"}\n\n{"query": "bad", "checks": 3}\n')
    with pytest.raises(ConfigError) as error:
        load_suite(write(tmp_path / "jsonl.yaml", "cases_from: rows.jsonl\n"))
    assert f"{tmp_path / 'rows.jsonl'}:3: checks:" in str(error.value)


def test_a_data_file_changed_after_loading_is_refused_when_read(tmp_path: Path) -> None:
    rows = write(tmp_path / "rows.csv", TRICKY_CSV)
    cases = load_suite(write(tmp_path / "suite.yaml", SUITE)).cases
    with rows.open("a", encoding="utf-8") as handle:
        handle.write("q5,more,1,Bern\r\n")
    with pytest.raises(ConfigError, match="the file changed after the suite was loaded"):
        cases[0]


def test_identical_checks_are_one_object_across_cases(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,query,answer\na,x,42\nb,y,42\nc,z,7\n")
    rows = load_suite(
        write(
            tmp_path / "rows.yaml",
            "cases_from: rows.csv\ncolumns: {answer: {type: contains}}\n"
            "defaults: {checks: [{type: max_length, value: 9}]}\n",
        )
    ).cases
    assert (
        rows[0].grading.checks[1] is rows[1].grading.checks[1]
    )  # the same cell: one compiled check
    assert rows[0].grading.checks[1] is not rows[2].grading.checks[1]
    assert rows[0].grading.checks[0] is rows[2].grading.checks[0]

    inline = load_suite(
        write(
            tmp_path / "inline.yaml",
            """\
            test_cases:
              - {id: a, query: x, checks: [{type: regex, value: "\\\\d+"}, {type: is_valid_json}]}
              - {id: b, query: y, checks: [{type: regex, value: "\\\\d+"}, {type: is_valid_json}]}
              - id: c
                query: z
                checks: [{type: max_length, value: 1}, {type: max_length, value: 1.0}]
            """.replace("            ", ""),
        )
    ).cases
    first, second, third = inline
    assert first.grading.checks[0] is second.grading.checks[0]
    assert first.grading.checks[1] is second.grading.checks[1]
    assert first.grading.checks[0].compiled is second.grading.checks[0].compiled
    assert (
        third.grading.checks[0] is not third.grading.checks[1]
    )  # 1 and 1.0 are written differently


def test_checks_written_alike_in_python_prompts_are_one_object() -> None:
    session = Session(models=["fault/a"])
    own = CheckDefinition(type="regex", value=r"\d+")
    compiled = own.compiled
    for index in range(3):
        checks = [{"type": "contains", "value": "Paris"}, own, {"type": "contains", "value": "x"}]
        session.add_test(Prompt(name=f"p{index}", prompt="q", checks=checks[: 2 + index % 2]))
    first, second, third = session.tests
    assert first.grading.checks[0] is second.grading.checks[0] is third.grading.checks[0]
    assert first.grading.checks[1] is own
    assert own.compiled is compiled  # used as given, not compiled again
    assert [len(case.grading.checks) for case in session.tests] == [2, 3, 2]


def test_a_check_copied_with_another_value_is_graded_by_that_value() -> None:
    # A copy keeps the compiled check of the original: it must not be taken as compiled.
    paris = CheckDefinition(type="contains", value="Paris")
    rome = paris.model_copy(update={"value": "Rome"})
    session = Session(models=["fault/a"])
    session.add_test(Prompt(name="p", prompt="q", checks=[rome]))
    (check,) = session.tests[0].grading.checks
    assert check.compiled(Completion(text="Rome")).passed
    assert not check.compiled(Completion(text="Paris")).passed


def test_a_check_type_registered_again_is_what_the_next_prompt_runs() -> None:
    # Python Prompts share compiled checks for the life of the process: a user's own check
    # type, registered again under its name (a reload, a test fixture), must not be reused.
    def prompt_with_check(index: int) -> CheckDefinition:
        session = Session(models=["fault/a"])
        session.add_test(Prompt(name=f"p{index}", prompt="q", checks=[{"type": "verdict"}]))
        return session.tests[0].grading.checks[0]

    graded = []
    for passes in (True, False):
        register_check_type("verdict", lambda response, passes=passes: passes, "a test")
        try:
            check = prompt_with_check(len(graded))
        finally:
            unregister_check_type("verdict")
        graded.append(check.compiled(Completion(text="anything")).passed)
    assert graded == [True, False]


def _golden_set(folder: Path, rows: int) -> Path:
    lines = [f"q{i},What is {i % 97} + {i % 13}?,{i % 97 + i % 13}" for i in range(rows)]
    write(folder / "rows.csv", "id,query,answer\n" + "\n".join(lines) + "\n")
    return write(
        folder / "suite.yaml",
        "cases_from: rows.csv\ncolumns: {answer: {type: contains}}\ndefaults:\n"
        "  checks: [{type: max_length, value: 200}, {type: min_length, value: 1}]\n",
    )


def _measured(work: Callable[[], object]) -> tuple[object, int, int]:
    """What `work` returns, the memory it leaves held and its peak, in bytes."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = work()
        gc.collect()
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return kept, retained - before, peak - before


def _per_extra_row(tmp_path: Path, work: Callable[[Path], object]) -> tuple[float, float]:
    """Bytes held, and at the peak, per row of 5,000 rows beyond the first 1,000."""
    small, large = (_golden_set(tmp_path / str(rows), rows) for rows in (1_000, 5_000))
    _, kept_small, peak_small = _measured(lambda: work(small))
    _, kept_large, peak_large = _measured(lambda: work(large))
    return (kept_large - kept_small) / 4_000, (peak_large - peak_small) / 4_000


def test_memory_per_row_is_bytes_not_a_test_case(tmp_path: Path) -> None:
    kept, peak = _per_extra_row(tmp_path, load_suite)
    # Held: the row index (16 bytes a row) and what an array over-allocates; a TestCase
    # with its messages and checks is several kilobytes.
    assert kept < 64
    # While loading: also the hash of each id, to find duplicates in the same pass.
    assert peak < 300


def test_a_session_selects_and_overrides_a_large_suite_in_bytes_per_row(tmp_path: Path) -> None:
    def start(suite: Path) -> Sequence[TestCase]:
        session = Session()
        session.add_suite(suite)
        session.select(lambda case: case.id.endswith(("0", "2", "4", "6", "8")))
        session.override(repeat=2, judge=None)
        planned = session.planned_cases()
        assert len(planned) in (500, 2_500)
        assert planned[-1].repeat == 2
        return planned

    kept, _ = _per_extra_row(tmp_path, start)
    assert kept < 64  # the loaded index, and 8 bytes a selected case


def test_a_session_holds_a_suite_without_building_its_cases(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", TRICKY_CSV)
    suite = load_suite(write(tmp_path / "suite.yaml", SUITE))
    session = Session(models=["fault/default"])
    session.add_test(Prompt(name="first", prompt="hi"))
    session.add_suite(suite)
    session.add_test(Prompt(name="last", prompt="bye"))

    assert [case.key for case in session.tests] == [
        "first",
        *[case.key for case in suite.cases],
        "last",
    ]
    session.select(lambda case: case.variant != "polite")
    session.override(repeat=3, judge="fault/judge")
    planned = session.planned_cases()
    assert [(c.key, c.variant, c.repeat) for c in planned] == [
        ("first", "", 3),
        ("golden/q1", "plain", 3),
        ("golden/q2", "plain", 3),
        ("golden/rows-3", "plain", 3),
        ("last", "", 3),
    ]
    assert planned[0].models == ("fault/default",)
    assert planned[1].models == ("fault/a", "fault/b")
    assert all(
        c.grading.judge is not None and c.grading.judge.model == "fault/judge" for c in planned
    )
    assert planned[2] == [*planned][2]


def test_a_session_still_refuses_a_test_twice(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", TRICKY_CSV)
    path = write(tmp_path / "suite.yaml", SUITE)
    session = Session()
    session.add_suite(path)
    with pytest.raises(ConfigError, match="a test named 'golden/q1' is already in the session"):
        session.add_suite(path)
    with pytest.raises(ConfigError, match="a test named 'golden/q2' is already in the session"):
        session.add_test(dataclasses.replace(session.tests[2], repeat=2))

    # A Suite made in Python, not loaded: its ids were not checked yet.
    case = session.tests[1]
    made = Suite("golden", path, (case, dataclasses.replace(case, repeat=5)))
    with pytest.raises(ConfigError, match="a test named 'golden/q1' is already in the session"):
        Session().add_suite(made)


def test_duplicate_ids_in_rows_are_reported_with_both_lines(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,query\na,x\nb,y\na,z\n")
    write(tmp_path / "more.jsonl", '{"id": "b", "query": "again"}\n')
    suite = write(tmp_path / "suite.yaml", "name: s\ncases_from: [rows.csv, more.jsonl]\n")
    with pytest.raises(ConfigError) as error:
        load_suites([suite])
    rows, more = tmp_path / "rows.csv", tmp_path / "more.jsonl"
    assert str(error.value).splitlines()[1:] == [
        f"{rows}:4: duplicate case id 'a' in suite 's', first defined at {rows}:2; ids must "
        "be unique within a suite: rename one",
        f"{more}:1: duplicate case id 'b' in suite 's', first defined at {rows}:3; ids must "
        "be unique within a suite: rename one",
    ]


def test_a_deep_problem_in_a_large_yaml_suite_is_still_located(tmp_path: Path) -> None:
    cases = "".join(f"  - {{id: c{i}, query: q{i}}}\n" for i in range(200))
    bad = textwrap.indent(
        "- id: broken\n  query: hi\n  checks:\n    - {type: contains, value: 3}\n", "  "
    )
    with pytest.raises(ConfigError) as error:
        load_suite(write(tmp_path / "big.yaml", "test_cases:\n" + cases + bad))
    assert f"{tmp_path / 'big.yaml'}:205:9: test_cases[200].checks[0]: check" in str(error.value)
