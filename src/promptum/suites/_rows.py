"""Case sources beside the suite file: CSV and JSONL rows, and folders of TOML case files.

Each yields raw case mappings in the suite's case format, with a locator for errors. In
CSV and JSONL, a column named after a case key (`id`, `query`, `expected_behavior`, ...)
sets it and every other column becomes a template variable.
"""

from __future__ import annotations

import csv
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError
from promptum.suites._format import CaseFields
from promptum.suites._locate import Locator, Position

_CSV_CASE_COLUMNS = frozenset({"id", "query", "system", "expected_behavior"})


@dataclass(frozen=True, slots=True)
class RawCase:
    """One case as written in a source, before validation."""

    data: dict[str, Any]
    locator: Locator
    default_id: str | None
    """The id a case without `id` gets; None where `id` is required (YAML suites)."""


def _open_error(path: Path, exc: Exception) -> ConfigError:
    return ConfigError(f"{path}: cannot read the file: {exc}")


def _split_columns(row: dict[str, Any], case_keys: frozenset[str] | set[str]) -> dict[str, Any]:
    case = {key: value for key, value in row.items() if key in case_keys}
    variables = {key: value for key, value in row.items() if key not in case_keys}
    if variables:
        case["vars"] = {**variables, **case.get("vars", {})}
    return case


def csv_cases(path: Path) -> Iterator[RawCase]:
    """One case per CSV row; the header names the columns."""
    try:
        # utf-8-sig: spreadsheets save CSV with a byte-order mark that would rename `id`.
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            line = reader.line_num + 1
            for number, row in enumerate(reader, start=1):
                if None in row:
                    raise ConfigError(
                        f"{path}:{line}: row {number} has more values than the header has "
                        "columns; quote values that contain commas"
                    )
                locator = Locator(path, {(): Position(line)})
                # An empty cell in a case column means "not given": the row's default id,
                # the suite's prompt and system message.
                given = {k: v for k, v in row.items() if v != "" or k not in _CSV_CASE_COLUMNS}
                data = _split_columns(given, _CSV_CASE_COLUMNS)
                yield RawCase(data, locator, f"{path.stem}-{number}")
                line = reader.line_num + 1
    except (OSError, UnicodeDecodeError) as exc:
        raise _open_error(path, exc) from exc
    except csv.Error as exc:
        raise ConfigError(f"{path}: invalid CSV: {exc}") from exc


def jsonl_cases(path: Path) -> Iterator[RawCase]:
    """One case per JSON line; blank lines are skipped."""
    case_keys = set(CaseFields.model_fields)
    try:
        with path.open(encoding="utf-8") as handle:
            number = 0
            for line_number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                number += 1
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ConfigError(
                        f"{path}:{line_number}:{exc.colno}: invalid JSON: {exc.msg}"
                    ) from exc
                if not isinstance(row, dict):
                    raise ConfigError(
                        f"{path}:{line_number}: each line must be a JSON object, "
                        f"got {type(row).__name__}"
                    )
                locator = Locator(path, {(): Position(line_number)})
                yield RawCase(_split_columns(row, case_keys), locator, f"{path.stem}-{number}")
    except (OSError, UnicodeDecodeError) as exc:
        raise _open_error(path, exc) from exc


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
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _open_error(path, exc) from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message, where = str(exc), str(path)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if found:  # tomllib says where only in its message (until Python 3.14)
            message, where = message[: found.start()], f"{path}:{found[1]}:{found[2]}"
        raise ConfigError(f"{where}: invalid TOML: {message}") from exc
    return RawCase(data, Locator(path, _toml_positions(text)), path.stem)


def toml_cases(folder: Path) -> Iterator[RawCase]:
    """Every `*.toml` file of `folder`, in name order."""
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise ConfigError(f"{folder}: the folder has no *.toml case files")
    for path in files:
        yield toml_case(path)


def case_source(path: Path) -> Iterator[RawCase]:
    """The cases of a CSV file, a JSONL file or a folder of TOML files."""
    if path.is_dir():
        return toml_cases(path)
    if not path.exists():
        raise ConfigError(f"{path}: no such file or folder")
    readers: dict[str, Callable[[Path], Iterator[RawCase]]] = {
        ".csv": csv_cases,
        ".jsonl": jsonl_cases,
        ".toml": lambda p: iter([toml_case(p)]),
    }
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise ConfigError(
            f"{path}: cannot read cases from a {path.suffix or 'extensionless'} file; "
            "use .csv, .jsonl, a .toml case file or a folder of .toml case files"
        )
    return reader(path)
