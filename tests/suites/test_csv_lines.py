"""A CSV row is reported at the line it starts on, past blank lines and multi-line cells."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import load_suite

SUITE = "name: rows\nmodels: [fault/m]\nprompt: '{{ q }}'\ncases_from: rows.csv\n"

# Line 1 the header; rows start on lines 4, 6 (a cell over three lines) and 11.
ROWS = 'id,q\n\n\na,first\n\nb,"one\n\ntwo"\n\n\nc,third\n'


def _suite(folder: Path, rows: str) -> Path:
    (folder / "rows.csv").write_bytes(rows.encode("utf-8"))
    suite = folder / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    return suite


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_each_row_is_sourced_at_its_first_line(tmp_path: Path, newline: str) -> None:
    cases = load_suite(_suite(tmp_path, ROWS.replace("\n", newline))).cases
    rows = tmp_path / "rows.csv"
    assert [(case.id, case.source) for case in cases] == [
        ("a", f"{rows}:4"),
        ("b", f"{rows}:6"),
        ("c", f"{rows}:11"),
    ]
    assert cases[1].messages[-1].content == f"one{newline}{newline}two"


def test_a_broken_row_after_blank_lines_and_a_long_cell_is_named_at_its_line(
    tmp_path: Path,
) -> None:
    with pytest.raises(ConfigError) as error:
        load_suite(_suite(tmp_path, ROWS + "\n\nd,fourth,extra\n"))
    assert f"{tmp_path / 'rows.csv'}:14: row 4 has more values than the header" in str(error.value)


def test_a_row_after_a_long_cell_without_blank_lines_is_named_at_its_line(
    tmp_path: Path,
) -> None:
    with pytest.raises(ConfigError) as error:
        load_suite(_suite(tmp_path, 'id,q\na,"one\ntwo\nthree"\nb,second,extra\n'))
    assert f"{tmp_path / 'rows.csv'}:5: row 2 has more values than the header" in str(error.value)


def test_blank_lines_before_the_header_are_skipped(tmp_path: Path) -> None:
    cases = load_suite(_suite(tmp_path, "\n\r\nid,q\na,first\n\nb,second\n")).cases
    rows = tmp_path / "rows.csv"
    assert [(case.id, case.source) for case in cases] == [("a", f"{rows}:4"), ("b", f"{rows}:6")]
    assert cases[1].messages[-1].content == "second"


def test_a_row_short_of_columns_is_named_with_the_columns_it_lacks(tmp_path: Path) -> None:
    (tmp_path / "rows.csv").write_text("id,q,capital,note\na,first,x,y\nb,second\n")
    (tmp_path / "suite.yaml").write_text(SUITE.replace("'{{ q }}'", "'{{ q }} {{ capital }}'"))
    with pytest.raises(ConfigError) as error:
        load_suite(tmp_path / "suite.yaml")
    assert (
        f"{tmp_path / 'rows.csv'}:3: row 2 has 2 of the header's 4 columns (no capital, note)"
        in (str(error.value))
    )


@pytest.mark.parametrize(
    ("rows", "line", "hint"),
    [
        ('id,q\na,first\nb,"second\nc,third\n', 3, "a quoted value is never closed"),
        ('id,q\na,"fir"st\n', 2, 'its quotes doubled ("say ""hi""")'),
    ],
)
def test_a_broken_quote_is_named_at_its_row_with_what_to_do(
    tmp_path: Path, rows: str, line: int, hint: str
) -> None:
    with pytest.raises(ConfigError) as error:
        load_suite(_suite(tmp_path, rows))
    message = str(error.value)
    assert f"{tmp_path / 'rows.csv'}:{line}: invalid CSV: " in message
    assert hint in message
