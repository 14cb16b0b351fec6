"""A data file's copied rows planned from the texts loading noted, not read and rendered again.

Known fingerprints were computed with 368f0ee's code, which made every case and hashed it
whole: a plan reading the texts must give them byte for byte.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from promptum.cases import Cases, CaseStore, Change, CopiedRow, CopiedRun, Mapped, TestCase
from promptum.errors import ConfigError
from promptum.runner import Survey, plan_fingerprint
from promptum.session import Session
from promptum.suites import load_suite

PLAIN_SUITE = """\
name: texts
models: [m1, m2]
system: "Be terse, \\"exact\\"."
prompt: "Say {{ word }} in {{ lang }}"
vars:
  lang: français
defaults:
  checks:
    - {type: contains, value: a}
    - {type: max_length, value: 300}
cases_from: rows.csv
"""


def plain_rows(count: int, width: int = 0) -> str:
    """Rows with quotes, commas, tabs, non-ASCII and, with `width`, long prompts."""
    pad = "ü" * width
    rows = "".join(f'r{n},"wörd\t""{n}"", {pad}"\n' for n in range(count))
    return "id,word\n" + rows


def mixed_rows() -> str:
    """Rows that set what others do not (a system cell, no id): those are built in full."""
    rows = []
    for n in range(30):
        case_id = "" if n % 7 == 3 else f"m{n}"
        system = "Own system ✓" if n % 5 == 4 else ""
        rows.append(f"{case_id},w{n},{system}\n")
    return "id,word,system\n" + "".join(rows)


def write(folder: Path, suite: str, rows: str) -> Path:
    (folder / "rows.csv").write_text(rows, encoding="utf-8")
    (folder / "suite.yaml").write_text(suite, encoding="utf-8")
    return folder / "suite.yaml"


def _session(path: Path, overridden: bool = True) -> Session:
    session = Session()
    session.add_suite(load_suite(path))
    if overridden:
        session.override(models=["o/m"], repeat=2)  # `-m o/m --repeat 2`
    return session


def _items(cases: Sequence[TestCase]) -> list[object]:
    assert isinstance(cases, CaseStore)
    return list(cases.planned())


@pytest.mark.parametrize(
    ("rows", "overridden", "known"),
    [
        (plain_rows(50), True, "1f4448ed7ffff909"),
        (plain_rows(50), False, "5cd96039ad48e45e"),
        # Texts of many blocks (~330 KB): read back a block at a time.
        (plain_rows(3000, 60), True, "4bad342d3e06abfe"),
        (plain_rows(3000, 60), False, "64e6ffe6423d4c8d"),
    ],
)
def test_copied_rows_are_planned_from_their_texts_with_the_known_fingerprint(
    tmp_path: Path, rows: str, overridden: bool, known: str
) -> None:
    session = _session(write(tmp_path, PLAIN_SUITE, rows), overridden)
    items = _items(session.planned_cases())
    runs = [item for item in items if isinstance(item, CopiedRun)]
    count = rows.count("\n") - 1
    # The first two rows are built (the prototype, and the row vouching for it); the rest
    # are runs of texts: no row read from the file or rendered again.
    assert sum(run.count for run in runs) == count - 2
    assert not [item for item in items if isinstance(item, CopiedRow)]
    survey = Survey.of(session.planned_cases(), fingerprint=True)
    assert survey.fingerprint == known
    assert plan_fingerprint(list(session.planned_cases())) == known
    models = 1 if overridden else 2
    repeats = 2 if overridden else 1
    assert survey.count == count * models * repeats


def test_rows_built_in_full_between_copied_ones_are_read_from_the_file(tmp_path: Path) -> None:
    session = _session(write(tmp_path, PLAIN_SUITE, mixed_rows()))
    items = _items(session.planned_cases())
    made = [item for item in items if isinstance(item, TestCase)]
    copied = sum(item.count for item in items if isinstance(item, CopiedRun))
    assert copied
    assert made
    assert len(made) + copied == 30
    assert {"texts/m4", "texts/rows-4"} <= {case.key for case in made}  # own system, no id
    survey = Survey.of(session.planned_cases(), fingerprint=True)
    assert survey.fingerprint == "bdcfdf6fff5c60e3"
    assert survey.count == 60


def test_a_plan_hashing_vars_reads_the_rows_again(tmp_path: Path) -> None:
    suite = PLAIN_SUITE.replace(
        "    - {type: max_length, value: 300}\n",
        "    - {type: expr, value: \"vars['word'] != ''\"}\n",
    )
    session = _session(write(tmp_path, suite, plain_rows(40)))
    survey = Survey.of(session.planned_cases(), fingerprint=True)
    # The texts leave vars out: the fingerprint is that of the cases made.
    assert survey.fingerprint == plan_fingerprint(list(session.planned_cases()))
    assert survey.count == 80


def test_planning_again_reads_the_texts_again(tmp_path: Path) -> None:
    session = _session(write(tmp_path, PLAIN_SUITE, plain_rows(50)))
    first = Survey.of(session.planned_cases(), fingerprint=True)
    again = Survey.of(session.planned_cases(), fingerprint=True)
    assert (first.fingerprint, first.count) == (again.fingerprint, again.count)
    assert first.fingerprint == "1f4448ed7ffff909"


def test_a_data_file_changed_after_loading_stops_the_plan(tmp_path: Path) -> None:
    session = _session(write(tmp_path, PLAIN_SUITE, plain_rows(50)))
    with (tmp_path / "rows.csv").open("a", encoding="utf-8") as handle:
        handle.write("late,row\n")
    with pytest.raises(ConfigError, match="changed after the suite was loaded"):
        Survey.of(session.planned_cases(), fingerprint=True)


def test_a_file_of_rows_built_in_full_keeps_no_texts(tmp_path: Path) -> None:
    # Column checks make each row's checks its own: no row is copied, nothing is noted.
    suite = PLAIN_SUITE.replace("cases_from:", "columns:\n  word: {type: contains}\ncases_from:")
    session = _session(write(tmp_path, suite, plain_rows(20)))
    items = _items(session.planned_cases())
    assert len(items) == 20
    assert all(isinstance(item, TestCase) for item in items)


def test_without_a_temporary_folder_the_plan_reads_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))  # a folder since removed
    session = _session(write(tmp_path, PLAIN_SUITE, plain_rows(50)))
    items = _items(session.planned_cases())
    assert not [item for item in items if isinstance(item, CopiedRun)]
    assert sum(isinstance(item, CopiedRow) for item in items) == 48
    assert Survey.of(session.planned_cases(), fingerprint=True).fingerprint == "1f4448ed7ffff909"


def test_two_plans_read_in_turn_each_read_every_text(tmp_path: Path) -> None:
    session = _session(write(tmp_path, PLAIN_SUITE, plain_rows(3000, 60)))
    first = iter(_items(session.planned_cases()))
    second = iter(_items(session.planned_cases()))
    texts: tuple[list[str], list[str]] = ([], [])
    for one, two in zip(first, second, strict=True):
        for item, seen in ((one, texts[0]), (two, texts[1])):
            if isinstance(item, CopiedRun):
                seen.append(item.text)
    assert texts[0] == texts[1]
    assert "".join(texts[0]).count("\n") == 2998


JSONL_SUITE = """\
name: lines
models: m1
prompt: "Tell {{ who }} about {{ topic }}"
defaults:
  checks:
    - {type: min_length, value: 2}
cases_from: rows.jsonl
"""


def test_jsonl_lines_are_planned_from_their_texts_too(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": f"j{n}", "who": f"Zoë {n}", "topic": 'naïve "quotes"'})
        + ("\n\n" if n % 9 == 0 else "\n")  # blank lines between cases are skipped
        for n in range(25)
    ]
    (tmp_path / "rows.jsonl").write_text("".join(lines), encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(JSONL_SUITE, encoding="utf-8")
    session = Session()
    session.add_suite(load_suite(tmp_path / "suite.yaml"))
    session.override(models=["o/m"])
    items = _items(session.planned_cases())
    assert sum(item.count for item in items if isinstance(item, CopiedRun)) == 23
    survey = Survey.of(session.planned_cases(), fingerprint=True)
    assert survey.fingerprint == "8bcfe4bd477ce5db"  # 368f0ee's
    assert survey.count == 25


def _made(cases: Sequence[TestCase]) -> list[TestCase]:
    """The cases a plan reads of `cases`, each made (as they are read: the file is open)."""
    assert isinstance(cases, CaseStore)
    made: list[TestCase] = []
    for item in cases.planned():
        if isinstance(item, CopiedRun):
            made += [row.case() if isinstance(row, CopiedRow) else row for row in item.rows()]
        elif isinstance(item, CopiedRow):
            made.append(item.case())
        else:
            made.append(item)
    return made


def test_changes_nested_in_parts_reach_copied_rows_in_the_order_given(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, PLAIN_SUITE, plain_rows(40)))

    def tagged(tag: str) -> Change:
        return lambda case: replace(case, tags=(*case.tags, tag))

    inner = Mapped(suite.cases, tagged("inner"), uniform=True)
    cases = Cases([[], Mapped(Cases([inner]), tagged("outer"), uniform=True)])
    made = list(cases)
    assert len(made) == 40
    assert {case.tags for case in made} == {("inner", "outer")}
    items = _items(cases)
    assert sum(item.count for item in items if isinstance(item, CopiedRun)) > 30  # not made
    assert _made(cases) == made
