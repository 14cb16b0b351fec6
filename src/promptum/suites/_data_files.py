"""Case sources beside the suite file: CSV and JSONL rows, and folders of TOML case files.

Each yields raw case mappings in the suite's case format, with a locator for errors. In
CSV and JSONL, a column named after a case key (`id`, `query`, `expected_behavior`, ...)
sets it and every other column becomes a template variable. Files are opened through
`_file_reading`, within its limits.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import os
import re
import stat
import sys
import time
import tomllib
from array import array
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from promptum.errors import ConfigError
from promptum.suites._file_reading import (
    DATA_HINT,
    long_number,
    max_data_bytes,
    open_regular,
    read_document,
    refuse_file,
    resolved,
    stat_of,
    unreadable,
)
from promptum.suites._format import CaseFields
from promptum.suites._locate import Locator, Position, problems_error

_CSV_CASE_COLUMNS = frozenset({"id", "query", "system", "expected_behavior"})

MAX_ROW_CHARS = 16 * 1024 * 1024
"""The longest CSV row or JSONL line, in characters (a CSV cell also stops at Python's
131,072-character field limit)."""


@dataclass(frozen=True, slots=True)
class RawCase:
    """One case as written in a source, before validation."""

    data: dict[str, Any]
    locator: Locator
    default_id: str | None
    """The id a case without `id` gets; None where `id` is required (YAML suites)."""


def _number_line(text: str) -> str:
    """``:line`` of the first run of digits too long to read in `text`, or nothing."""
    found = re.search(rf"[0-9][0-9_]{{{sys.get_int_max_str_digits()},}}", text)
    if found is None:
        return ""
    line = text.count("\n", 0, found.start()) + 1
    return f":{line}"


class _Lines:
    """The lines of an open CSV or JSONL file, refusing an overlong row or an outgrown file."""

    def __init__(self, handle: IO[str], path: Path, limit: int, offset: int) -> None:
        self.handle, self.path, self.limit = handle, path, limit
        self.number = 0
        self.row_start = 1
        """The line the row being read starts on: csv skips blank lines between rows."""
        self._between_rows = True
        self.row_chars = 0
        self.total_chars = 0
        self.offset = offset
        """The byte offset in the file after the last line read."""

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = self.handle.readline(MAX_ROW_CHARS + 1)
        if not line:
            raise StopIteration
        self.number += 1
        if self._between_rows and line in ("\n", "\r\n", "\r"):
            self.row_start = self.number + 1
        else:
            self._between_rows = False
        size = len(line)
        self.row_chars += size
        self.total_chars += size
        # Lines come untranslated (newline=""), so their UTF-8 is exactly the file's bytes.
        self.offset += size if line.isascii() else len(line.encode("utf-8"))
        if self.row_chars > MAX_ROW_CHARS:
            raise ConfigError(
                f"{self.path}:{self.row_start}: the row is longer than {MAX_ROW_CHARS:,} "
                "characters; a case's values belong in shorter rows"
            )
        if self.total_chars > self.limit:  # characters never outnumber bytes
            refuse_file(self.path, stat.S_IFREG, self.total_chars, self.limit, DATA_HINT)
        return line

    def row_done(self) -> None:
        """Start counting the next row's characters."""
        self.row_chars = 0
        self.row_start = self.number + 1
        self._between_rows = True


def _stamp(found: os.stat_result) -> tuple[int, int, int, int]:
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


def _split_columns(row: dict[str, Any], case_keys: frozenset[str] | set[str]) -> dict[str, Any]:
    case = {key: value for key, value in row.items() if key in case_keys}
    variables = {key: value for key, value in row.items() if key not in case_keys}
    if variables:
        case["vars"] = {**variables, **case.get("vars", {})}
    return case


_JSONL_CASE_KEYS = frozenset(CaseFields.model_fields)
_BLOCK_ROWS = 256
_BLOCK_BYTES = 1 << 20
"""`RowFile.rows` reads up to this many rows, and bytes (but at least one row), at a time."""
_BOM = "\ufeff".encode()
_CHECK_NS = 1_000_000
"""`RowFile.rows` checks the file at least this often (in nanoseconds), and on each block."""


class RowFile:
    """A CSV or JSONL file of cases: read once in full (`scan`), then any row again by number.

    Only where each row starts and its line are kept (16 bytes a row). The file is closed
    once scanned, as a suite may have more data files than a process may open files: a row
    is read again from the file `opened` gives, refused unless it is the file that was
    scanned, unchanged.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stem = path.stem
        self.csv = path.suffix.lower() == ".csv"
        self.starts = array("q")
        """Where each row's text starts, then where the last one ends."""
        self.lines = array("q")
        """The line each row is reported at."""
        self.header: list[str] = []
        self._distinct = True
        """Whether the header names each column once (a name twice: the last cell counts)."""
        self._case_cells: list[tuple[int, str]] = []
        """(index, name) of the header's case columns (see `_raw`)."""
        self._var_cells: list[tuple[int, str]] = []
        """(index, name) of its other columns: a row's vars."""
        self._stamp: tuple[int, int, int, int] | None = None
        """The scanned file's device, inode, size and time of change."""

    def __len__(self) -> int:
        return len(self.lines)

    def scan(self) -> Iterator[RawCase]:
        """Every row as a case, in order, noting where each is; ConfigError at a broken one."""
        limit = max_data_bytes()
        descriptor = open_regular(self.path, limit, DATA_HINT)
        # utf-8-sig: spreadsheets save CSV with a byte-order mark that would rename `id`, and
        # Windows editors save JSONL with one that is not JSON.
        encoding = "utf-8-sig"
        try:
            with io.FileIO(descriptor, "r") as file:
                skipped = len(_BOM) if file.read(len(_BOM)) == _BOM else 0
                file.seek(0)
                # The handle reads through a duplicate: closing it leaves `file` to be stamped.
                with open(os.dup(descriptor), encoding=encoding, newline="") as handle:
                    lines = _Lines(handle, self.path, limit, skipped)
                    yield from self._scan_csv(lines) if self.csv else self._scan_jsonl(lines)
                self._stamp = _stamp(os.fstat(descriptor))
        except (OSError, UnicodeDecodeError) as exc:
            raise unreadable(self.path, exc) from None

    @contextmanager
    def opened(self) -> Iterator[io.FileIO]:
        """The scanned file, open again to read rows from; ConfigError if it changed since."""
        try:
            # Checked before opening too: opening a pipe or device swapped in could block.
            self._check(os.stat(self.path))
            descriptor = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            raise self._changed() from None
        except OSError as exc:
            raise unreadable(self.path, exc) from None
        with io.FileIO(descriptor, "r") as file:
            yield file

    def _check(self, found: os.stat_result) -> None:
        if self._stamp is None:
            raise RuntimeError("RowFile read before scan")
        if _stamp(found) != self._stamp:  # replaced, e.g. by a checkout, or edited in place
            raise self._changed()

    def _changed(self) -> ConfigError:
        return ConfigError(
            f"{self.path}: the file changed after the suite was loaded; load it again"
        )

    def _scan_csv(self, lines: _Lines) -> Iterator[RawCase]:
        try:
            yield from self._scan_csv_rows(lines)
        except csv.Error as exc:  # strict: a quote never closed, or text after a closing one
            where = f"{self.path}:{lines.row_start}"
            raise ConfigError(f"{where}: invalid CSV: {exc}{_csv_hint(str(exc))}") from None

    def _scan_csv_rows(self, lines: _Lines) -> Iterator[RawCase]:
        # The header is the first row that is not blank, as csv skips blank lines between rows.
        # Strict: a quote opened and never closed would otherwise take in the rest of the file.
        self.header = next((row for row in csv.reader(lines, strict=True) if row), [])
        self._distinct = len(set(self.header)) == len(self.header)
        for cell in enumerate(self.header):
            (self._case_cells if cell[1] in _CSV_CASE_COLUMNS else self._var_cells).append(cell)
        lines.row_done()
        start = lines.offset
        number = 0
        for values in csv.reader(lines, strict=True):
            if not values:
                continue  # a blank line between rows, skipped as csv.DictReader skips it
            number += 1
            self.starts.append(start)
            self.lines.append(lines.row_start)
            yield self._cells(values, lines.row_start, number)
            lines.row_done()
            start = lines.offset
        self.starts.append(start)

    def _csv_case(self, row: dict[Any, Any], line: int, number: int) -> RawCase:
        if None in row:
            raise ConfigError(
                f"{self.path}:{line}: row {number} has more values than the header has "
                "columns; quote values that contain commas"
            )
        return self._raw(row.items(), line, number)

    def _raw(self, cells: Iterable[tuple[str, Any]], line: int, number: int) -> RawCase:
        """The case of a CSV row's (column, value) cells."""
        # An empty cell in a case column means "not given": the row's default id, the
        # suite's prompt and system message.
        # What `_split_columns` makes of the cells given, in one loop (a row's largest cost).
        data: dict[str, Any] = {}
        variables: dict[str, Any] = {}
        for key, value in cells:
            if key not in _CSV_CASE_COLUMNS:
                variables[key] = value
            elif value != "":
                data[key] = value
        if variables:  # "vars" is no CSV case column: a column of that name is a variable
            data["vars"] = variables
        return self._row_case(data, line, number)

    def _row_case(self, data: dict[str, Any], line: int, number: int) -> RawCase:
        """Row `number`'s case of `data`, located at `line`, named `stem-number` by default."""
        return RawCase(data, Locator(self.path, {(): Position(line)}), f"{self.stem}-{number}")

    def _scan_jsonl(self, lines: _Lines) -> Iterator[RawCase]:
        start = lines.offset
        for line_number, line in enumerate(lines, start=1):
            lines.row_done()
            if line.strip():
                self.starts.append(start)
                self.lines.append(line_number)
                yield self._jsonl_case(line, line_number, len(self.lines))
            start = lines.offset
        self.starts.append(start)

    def _jsonl_case(self, line: str, line_number: int, number: int) -> RawCase:
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{self.path}:{line_number}:{exc.colno}: invalid JSON: {exc.msg}"
            ) from exc
        except RecursionError as exc:
            raise ConfigError(
                f"{self.path}:{line_number}: the JSON is nested too deeply to read"
            ) from exc
        except ValueError as exc:  # a number too long for int()
            raise long_number(f"{self.path}:{line_number}") from exc
        if not isinstance(row, dict):
            raise ConfigError(
                f"{self.path}:{line_number}: each line must be a JSON object, "
                f"got {type(row).__name__}"
            )
        locator = Locator(self.path, {(): Position(line_number)})
        return RawCase(_split_columns(row, _JSONL_CASE_KEYS), locator, f"{self.stem}-{number}")

    def row(self, index: int, file: io.FileIO) -> RawCase:
        """Row `index` (from 0) read again from `file` (see `opened`), as `scan` gave it."""
        self._check(os.fstat(file.fileno()))
        start = self.starts[index]
        return self._parsed(index, self._read(file, start, self.starts[index + 1]))

    def rows(self, file: io.FileIO, first: int = 0, stop: int | None = None) -> Iterator[RawCase]:
        """Rows `first` to `stop` (all), read again from `file` (see `opened`) a block at a time.

        One read per block rather than per row, as a run reads every row once or twice. The
        file is still checked before each row read a millisecond or more after the last check:
        a run stops at the first row after a change (a pass reading rows faster than that
        checks about once a millisecond, not each row, whose check would cost as much as it).
        """
        stop = len(self) if stop is None else min(stop, len(self))
        checked = 0
        while first < stop:
            base = self.starts[first]
            last = min(first + _BLOCK_ROWS, stop)
            fits = bisect.bisect_right(self.starts, base + _BLOCK_BYTES, first + 1, last + 1) - 1
            last = max(first + 1, fits)
            block = self._read(file, base, self.starts[last])
            # A CSV block is parsed in one go: its rows start where scanning found them.
            parsed = self._block(block) if self.csv else None
            if parsed is not None and len(parsed) != last - first:
                parsed = None  # not the rows scanned: each row says what it is on its own
            for index in range(first, last):
                now = time.monotonic_ns()
                if now - checked >= _CHECK_NS or index == first:
                    self._check(os.fstat(file.fileno()))
                    checked = now
                if parsed is not None:
                    yield self._csv_row(parsed[index - first], index)
                    continue
                start, end = self.starts[index] - base, self.starts[index + 1] - base
                yield self._parsed(index, block[start:end])
            first = last

    def _read(self, file: io.FileIO, start: int, end: int) -> bytes:
        """Bytes `start` to `end` of `file`; ConfigError if it ends sooner (it changed)."""
        file.seek(start)
        data = file.read(end - start)
        while len(data) < end - start:  # a raw read may return less than asked
            more = file.read(end - start - len(data))
            if not more:
                raise self._changed()
            data += more
        return data

    def _block(self, data: bytes) -> list[list[str]]:
        """The rows of a block of whole CSV rows, blank lines skipped as `scan` skipped them."""
        return [row for row in csv.reader(io.StringIO(data.decode("utf-8"), newline="")) if row]

    def _csv_row(self, values: list[str], index: int) -> RawCase:
        """Row `index` from its `values`, as `scan` read it."""
        return self._cells(values, self.lines[index], index + 1)

    def _cells(self, values: list[str], line: int, number: int) -> RawCase:
        """Row `number` (at `line`) from its `values`, as `csv.DictReader` would give it."""
        header = self.header
        if len(values) == len(header) and self._distinct:  # the usual row: its cells as they are
            # What `_raw` makes of them, the columns sorted out once for the file.
            data: dict[str, Any] = {
                name: values[i] for i, name in self._case_cells if values[i] != ""
            }
            if self._var_cells:
                data["vars"] = {name: values[i] for i, name in self._var_cells}
            return self._row_case(data, line, number)
        if len(values) < len(header):
            missing = ", ".join(header[len(values) :])
            raise ConfigError(
                f"{self.path}:{line}: row {number} has {len(values)} of the header's "
                f"{len(header)} columns (no {missing}); give each a value, an empty one with "
                "nothing after its comma (`x,France,`)"
            )
        fields: dict[Any, Any] = dict(zip(header, values, strict=False))
        if len(values) > len(header):
            fields[None] = values[len(header) :]
        return self._csv_case(fields, line, number)

    def _parsed(self, index: int, data: bytes) -> RawCase:
        """Row `index` from `data`, its text as `scan` found it."""
        text = data.decode("utf-8")
        line = self.lines[index]
        rows = io.StringIO(text, newline="")
        if not self.csv:
            return self._jsonl_case(rows.readline(), line, index + 1)
        # What csv.DictReader gives, at half its cost: blank lines skipped.
        return self._csv_row(next(row for row in csv.reader(rows) if row), index)


def _csv_hint(error: str) -> str:
    """What to do about a `csv.Error` of a strict reader, after a semicolon; "" if nothing."""
    if "end of data" in error:
        return "; a quoted value is never closed: close its quote"
    if "expected after" in error:
        return '; a value holding a quote is quoted whole, its quotes doubled ("say ""hi""")'
    return ""


def csv_cases(path: Path) -> Iterator[RawCase]:
    """One case per CSV row; the header names the columns."""
    return RowFile(path).scan()


def jsonl_cases(path: Path) -> Iterator[RawCase]:
    """One case per JSON line; blank lines are skipped."""
    return RowFile(path).scan()


def _toml_positions(text: str) -> dict[tuple[str | int, ...], Position]:
    """Best-effort lines of top-level keys and `[table]` keys (tomllib keeps no positions)."""
    positions: dict[tuple[str | int, ...], Position] = {(): Position(1)}
    table: tuple[str | int, ...] = ()
    items: dict[tuple[str, ...], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?", line)
        if header:
            name = tuple(header.group(2).split("."))
            positions.setdefault(name, Position(number))
            table = name
            if header.group(1) == "[[":  # an array of tables: `[[checks]]` is checks[n]
                index = items.get(name, 0)
                items[name] = index + 1
                table = (*name, index)
                positions.setdefault(table, Position(number))
            continue
        key = re.match(r"\s*([A-Za-z0-9_-]+(?:\s*\.\s*[A-Za-z0-9_-]+)*)\s*=", line)
        if key:
            position = Position(number, key.start(1) + 1)
            parts = tuple(part.strip() for part in key.group(1).split("."))
            for end in range(1, len(parts) + 1):  # `expected.city = ...` locates both
                positions.setdefault((*table, *parts[:end]), position)
    return positions


def toml_case(path: Path) -> RawCase:
    """One case from one TOML file; its id defaults to the file name without `.toml`."""
    text = read_document(path)
    try:
        data = tomllib.loads(text)
    except RecursionError as exc:
        raise ConfigError(f"{path}: the TOML is nested too deeply to read") from exc
    except tomllib.TOMLDecodeError as exc:
        message, where = str(exc), str(path)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if found:  # tomllib says where only in its message (until Python 3.14)
            message, where = message[: found.start()], f"{path}:{found[1]}:{found[2]}"
        raise ConfigError(f"{where}: invalid TOML: {message}") from exc
    except ValueError as exc:  # a number too long for int()
        raise long_number(f"{path}{_number_line(text)}") from exc
    return RawCase(data, Locator(path, _toml_positions(text)), path.stem)


class CaseFilesError(ConfigError):
    """Some case files of a folder could not be read; raised after the readable ones."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(str(problems_error(problems)))
        self.problems = problems


def toml_cases(folder: Path) -> Iterator[RawCase]:
    """Every `*.toml` file of `folder`, in name order; unreadable files are reported at the end."""
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise ConfigError(f"{folder}: the folder has no *.toml case files")
    unreadable: list[str] = []
    inside = resolved(folder)
    for path in files:
        # One broken file must not hide the problems of the others.
        try:
            target = resolved(path)
            if not target.is_relative_to(inside):
                # A committed link could pull any file of the machine into the prompts.
                raise ConfigError(
                    f"{path}: a link to {target}, outside its folder; a case file "
                    "must be a file of the folder itself"
                )
            case = toml_case(path)
        except ConfigError as exc:
            unreadable.append(str(exc))
            continue
        yield case
    if unreadable:
        raise CaseFilesError(unreadable)


def case_source(path: Path) -> Iterator[RawCase]:
    """The cases of a CSV file, a JSONL file or a folder of TOML files."""
    if not os.path.lexists(path):
        raise ConfigError(f"{path}: no such file or folder")
    mode = stat_of(path).st_mode  # a link that leads nowhere says so
    if stat.S_ISDIR(mode):
        return toml_cases(path)
    if not stat.S_ISREG(mode):  # a pipe or device: refused before its name is looked at
        refuse_file(path, mode, 0, 0)
    readers: dict[str, Callable[[Path], Iterator[RawCase]]] = {
        ".csv": csv_cases,
        ".jsonl": jsonl_cases,
        ".toml": lambda p: iter([toml_case(p)]),
    }
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise ConfigError(
            f"{path}: cannot read cases from a {path.suffix or 'extensionless'} file; "
            "use .csv, .jsonl, a .yaml case file (a list of cases), a .toml case file or a "
            "folder of .toml case files"
        )
    return reader(path)
