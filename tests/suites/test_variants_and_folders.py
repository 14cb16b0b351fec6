"""Prompt variants, folders of suites, namespaced ids and per-row checks, at load time."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.runner import planned_count
from promptum.runner._plan import Survey
from promptum.session import Session
from promptum.suites import find_suites, load_suite, load_suites
from tests.support.cli import write

VARIANTS = """\
    name: geo
    models: [fault/a, fault/b]
    repeat: 2
    system: Be brief.
    prompts:
      plain: "{{ query }}"
      file: {file: prompts/v2.txt}
      chat:
        - {role: system, content: You are a geographer.}
        - {role: user, content: "Q: {{ query }}"}
    test_cases:
      - {id: france, query: Capital of France?}
      - {id: japan, query: Capital of Japan?}
"""


def test_the_matrix_is_cases_by_variants_by_models_by_repeats(tmp_path: Path) -> None:
    write(tmp_path / "prompts" / "v2.txt", "Answer in a word: {{ query }}\n")
    suite = load_suite(write(tmp_path / "geo.yaml", VARIANTS))
    assert len(suite.cases) == 2 * 3
    assert planned_count(suite.cases) == 2 * 3 * 2 * 2
    by_variant = {(c.id, c.variant): [(m.role, m.content) for m in c.messages] for c in suite.cases}
    assert by_variant[("france", "plain")] == [
        ("system", "Be brief."),
        ("user", "Capital of France?"),
    ]
    assert by_variant[("france", "file")] == [
        ("system", "Be brief."),
        ("user", "Answer in a word: Capital of France?"),
    ]
    # The chat template's own system message wins over the suite's, as in a case's messages.
    assert by_variant[("japan", "chat")] == [
        ("system", "You are a geographer."),
        ("user", "Q: Capital of Japan?"),
    ]
    assert set(suite.variants) == {"plain", "file", "chat"}
    assert all(len(digest) == 12 for digest in suite.variants.values())


def test_a_variant_hash_follows_its_text(tmp_path: Path) -> None:
    prompt = write(tmp_path / "prompts" / "v2.txt", "Answer in a word: {{ query }}\n")
    before = load_suite(write(tmp_path / "geo.yaml", VARIANTS)).variants
    prompt.write_text("Answer in two words: {{ query }}\n", encoding="utf-8")
    after = load_suite(tmp_path / "geo.yaml").variants
    assert before["file"] != after["file"]
    assert before["plain"] == after["plain"]
    session = Session()
    session.add_suite(tmp_path / "geo.yaml")
    assert session._config(Survey.of(session.tests))["prompts"] == {"geo": after}


def test_variant_mistakes_are_located(tmp_path: Path) -> None:
    path = write(
        tmp_path / "geo.yaml",
        """\
        prompts:
          v1: {file: missing.txt}
          v2: []
          v3: "{{ query }}"
        test_cases:
          - id: a
            messages: [{role: user, content: hi}]
        """,
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    message = str(caught.value)
    assert f"prompts.v1: {tmp_path / 'missing.txt'}: cannot read the file" in message
    assert "prompts.v2: a chat template needs at least one message" in message
    assert "test_cases[0].messages: the suite's `prompts:` variants write the conversation" in (
        message
    )


def test_suites_namespace_their_case_ids(tmp_path: Path) -> None:
    one = write(tmp_path / "a" / "geo.yaml", "test_cases:\n  - {id: capital, query: q}\n")
    two = write(tmp_path / "b" / "hist.yaml", "test_cases:\n  - {id: capital, query: r}\n")
    suites = load_suites([one, two])
    assert [case.key for suite in suites for case in suite.cases] == [
        "geo/capital",
        "hist/capital",
    ]
    session = Session()
    for suite in suites:
        session.add_suite(suite)  # the same own id in two suites is two cases
    assert len(session.tests) == 2


def test_a_folder_of_suites_is_searched_recursively(tmp_path: Path) -> None:
    write(tmp_path / "geo.yaml", "cases_from: data/\ntest_cases:\n  - {id: capital, query: q}\n")
    write(tmp_path / "data" / "extra.toml", 'query = "x"\n')  # read by geo: not a suite
    write(tmp_path / "nested" / "deeper" / "hist.yml", "test_cases:\n  - {id: capital, query: r}\n")
    write(tmp_path / "cases" / "one.toml", 'id = "capital"\nquery = "s"\n')
    write(tmp_path / "ci" / "workflow.yml", "on: push\njobs: {}\n")
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    write(tmp_path / ".venv" / "ignored.yaml", "test_cases: []\n")
    found = find_suites([tmp_path])
    assert found.suites == [
        tmp_path / "geo.yaml",
        tmp_path / "nested" / "deeper" / "hist.yml",
        tmp_path / "cases",
    ]
    assert found.skipped == [
        (tmp_path / "ci" / "workflow.yml", "not a suite: no `test_cases` or `cases_from`"),
        (tmp_path, "not a case folder: no .toml file has `query`/`messages`"),
    ]
    suites = load_suites(found.suites)
    keys = sorted(case.key for suite in suites for case in suite.cases)
    assert keys == ["cases/capital", "geo/capital", "geo/extra", "hist/capital"]


def test_a_folder_with_no_suite_says_what_it_looked_for(tmp_path: Path) -> None:
    write(tmp_path / "notes.yaml", "- just a list\n")
    with pytest.raises(ConfigError, match="no suite found in this folder"):
        find_suites([tmp_path])


def test_a_duplicate_within_a_suite_points_at_both_places(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,query\na,x\nb,y\na,z\n")
    path = write(tmp_path / "s.yaml", "cases_from: rows.csv\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    rows = tmp_path / "rows.csv"
    assert f"{rows}:4: duplicate case id 'a' in suite 's', first defined at {rows}:2" in str(
        caught.value
    )
    twice = write(tmp_path / "t.yaml", "cases_from: [rows2.csv, rows2.csv]\n")
    write(tmp_path / "rows2.csv", "id,query\na,x\n")
    with pytest.raises(ConfigError, match=r"\(read twice through .*t\.yaml\)"):
        load_suite(twice)


def test_per_row_checks_come_from_their_column(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,query,must,never\na,x,Paris,Lyon\nb,y,,\nc,z,Rome,\n")
    path = write(
        tmp_path / "s.yaml",
        """\
        columns:
          must: {type: contains, case_insensitive: true}
          never: {type: not_contains}
        defaults:
          checks: [{type: max_length, value: 100}]
        cases_from: rows.csv
        """,
    )
    checks = {
        case.id: [(c.type, c.value, c.case_insensitive) for c in case.grading.checks]
        for case in load_suite(path).cases
    }
    assert checks == {
        "a": [
            ("max_length", 100, False),
            ("contains", "Paris", True),
            ("not_contains", "Lyon", False),
        ],
        "b": [("max_length", 100, False)],  # empty cells: no such check for this row
        "c": [("max_length", 100, False), ("contains", "Rome", True)],
    }


def test_a_column_check_without_its_column_points_at_the_check(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,query\na,x\n")
    path = write(
        tmp_path / "s.yaml", "columns:\n  expected: {type: contains}\ncases_from: rows.csv\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert f"{path}:2:3: columns.expected: {tmp_path / 'rows.csv'} has no column 'expected'" in (
        str(caught.value)
    )
