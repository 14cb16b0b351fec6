"""Rows copied from their file's prototype are counted while loading without being made:
the figures `promptum validate` prints and the duplicate ids found are those of every row."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import case_stats, load_suite

SUITE = """\
name: s
models: [m1, m2]
repeat: 2
prompt: "Say {{ word }}"
defaults:
  checks:
    - {type: contains, value: a}
    - {type: min_length, value: 1}
cases_from: rows.csv
"""


def _suite(folder: Path, rows: str) -> Path:
    (folder / "rows.csv").write_text("id,word\n" + rows, encoding="utf-8")
    path = folder / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def test_copied_rows_count_their_checks_and_results(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, "".join(f"r{n},w{n}\n" for n in range(50))))
    stats = case_stats(suite)
    assert (stats.checks, stats.results, stats.most_repeats) == (50 * 2, 50 * 2 * 2, 2)
    assert list(stats.models) == ["m1", "m2"]
    assert [case.id for case in suite.cases][-1] == "r49"


def test_a_copied_row_repeating_an_id_is_reported_at_both_lines(tmp_path: Path) -> None:
    rows = "".join(f"r{n},w{n}\n" for n in range(10)) + "r7,again\n"
    with pytest.raises(ConfigError) as error:
        load_suite(_suite(tmp_path, rows))
    where = tmp_path / "rows.csv"
    assert f"{where}:12: duplicate case id 'r7'" in str(error.value)
    assert f"first defined at {where}:9" in str(error.value)


def test_a_column_named_twice_reads_its_last_cell_when_run_as_when_loaded(tmp_path: Path) -> None:
    (tmp_path / "rows.csv").write_text("id,query,query\na,x,\nb,y,z\n", encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text('prompt: "the suite\'s"\ncases_from: rows.csv\n', encoding="utf-8")
    suite = load_suite(path)
    # An empty cell is "not given": the suite's prompt, as csv.DictReader gave it to loading.
    expected = ["the suite's", "z"]
    assert [case.messages[-1].content for case in suite.cases] == expected
    assert [suite.cases[i].messages[-1].content for i in range(2)] == expected
