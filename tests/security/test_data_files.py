"""Suites and case files are read only from regular files of bounded size, row by bounded row.

A suite names its data files, so a pull request can point one at `/dev/zero`, a named pipe
or a huge file; each is refused, located, without reading it.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.suites import _data_files, _file_reading, load_suite
from tests.support.cli import write
from tests.support.suites import load_error


def suite_reading(folder: Path, source: str) -> Path:
    return write(folder / "suite.yaml", f"prompt: 'Say {{{{ word }}}}'\ncases_from: {source}\n")


def validate(path: Path) -> str:
    """`promptum validate` output, which must be a located refusal."""
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture
def make_fifo() -> Iterator[Callable[[Path], Path]]:
    """Makes named pipes nothing writes to: opening one to read would wait forever."""
    made: list[Path] = []

    def make(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
        made.append(path)
        return path

    def unblock() -> None:
        # Should a reader be stuck in open(), give it a writer and end-of-file, so that a
        # regression fails this test instead of hanging the run.
        for path in made:
            with contextlib.suppress(OSError):  # nobody is reading: nothing to unblock
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    timer = threading.Timer(20, unblock)
    timer.start()
    yield make
    timer.cancel()


def test_a_device_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Run from `/` (as in some containers) a suite may read any path; devices still not.
    monkeypatch.chdir("/")
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    output = validate(suite_reading(tmp_path, "zero.jsonl"))
    assert f"{tmp_path / 'suite.yaml'}:2:1: cases_from[0]: {tmp_path / 'zero.jsonl'}: " in output
    assert "this is a device, not a regular file" in output

    output = validate(suite_reading(tmp_path, "/dev/zero"))
    assert "cases_from[0]: /dev/zero: this is a device, not a regular file" in output


def test_a_named_pipe_is_refused(tmp_path: Path, make_fifo: Callable[[Path], Path]) -> None:
    fifo = make_fifo(tmp_path / "rows.csv")
    output = validate(suite_reading(tmp_path, fifo.name))
    assert f"cases_from[0]: {fifo}: this is a named pipe, not a regular file" in output


def test_a_named_pipe_as_the_suite_or_a_toml_case_is_refused(
    tmp_path: Path, make_fifo: Callable[[Path], Path]
) -> None:
    suite = make_fifo(tmp_path / "suite.yaml")
    assert load_error(suite).startswith(f"{suite}: this is a named pipe, not a regular file")

    write(tmp_path / "cases" / "a.toml", 'query = "hi"\n')
    make_fifo(tmp_path / "cases" / "b.toml")
    message = load_error(tmp_path / "cases")
    assert f"{tmp_path / 'cases' / 'b.toml'}: this is a named pipe, not a regular file" in message


def test_an_oversized_data_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_file_reading, "MAX_DATA_BYTES", 100)
    rows = write(tmp_path / "rows.csv", "word\n" + "hello\n" * 20)
    output = validate(suite_reading(tmp_path, "rows.csv"))
    assert f"cases_from[0]: {rows}: the file has 125 bytes, over the limit of 100; " in output
    assert "set PROMPTUM_MAX_DATA_BYTES on the machine that runs it" in output

    # The machine running the suite may allow more; the suite file itself cannot.
    monkeypatch.setenv("PROMPTUM_MAX_DATA_BYTES", "1000")
    assert len(load_suite(tmp_path / "suite.yaml").cases) == 20
    monkeypatch.setenv("PROMPTUM_MAX_DATA_BYTES", "lots")
    assert "PROMPTUM_MAX_DATA_BYTES must be a positive number of bytes, got 'lots'" in (
        load_error(tmp_path / "suite.yaml")
    )


def test_an_oversized_suite_or_toml_case_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_file_reading, "MAX_DOCUMENT_BYTES", 60)
    suite = write(tmp_path / "suite.yaml", "test_cases:\n" + "  - {id: a, query: q}\n" * 4)
    assert load_error(suite).startswith(f"{suite}: the file has 100 bytes, over the limit of 60")

    case = write(tmp_path / "cases" / "big.toml", f'query = "{"x" * 100}"\n')
    message = load_error(tmp_path / "cases")
    assert f"{case}: the file has 111 bytes, over the limit of 60; move the cases to a CSV" in (
        message
    )


def test_an_overlong_jsonl_line_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_data_files, "MAX_ROW_CHARS", 1000)
    rows = tmp_path / "rows.jsonl"
    lines = [{"word": "short"}, {"word": "x" * 2000}, {"word": "never read"}]
    write(rows, "".join(json.dumps(line) + "\n" for line in lines))
    output = validate(suite_reading(tmp_path, "rows.jsonl"))
    assert f"{rows}:2: the row is longer than 1,000 characters" in output


def test_an_overlong_csv_row_is_refused_where_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_data_files, "MAX_ROW_CHARS", 1000)
    rows = tmp_path / "rows.csv"
    cell = "\n".join(["line of a quoted cell"] * 60)  # one row over many short lines
    write(rows, f'word\nshort\n"{cell}"\nlater\n')
    output = validate(suite_reading(tmp_path, "rows.csv"))
    assert f"{rows}:3: the row is longer than 1,000 characters" in output


def test_the_first_csv_row_is_located_on_its_own_line(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "word\nhello\nworld\n")
    cases = load_suite(suite_reading(tmp_path, "rows.csv")).cases
    assert [case.source for case in cases] == [
        f"{tmp_path / 'rows.csv'}:2",
        f"{tmp_path / 'rows.csv'}:3",
    ]


def test_json_and_toml_nested_too_deeply_are_refused(tmp_path: Path) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    rows = write(tmp_path / "rows.jsonl", f'{{"word": {nested}}}\n')
    output = validate(suite_reading(tmp_path, "rows.jsonl"))
    assert f"{rows}:1: the JSON is nested too deeply to read" in output

    case = write(tmp_path / "cases" / "deep.toml", f"query = 'q'\n[vars]\nword = {nested}\n")
    assert f"{case}: the TOML is nested too deeply to read" in load_error(tmp_path / "cases")
