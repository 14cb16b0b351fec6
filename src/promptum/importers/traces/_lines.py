"""Reading a trace export or a chat log as JSON records, one line at a time, in bounded memory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from promptum.errors import ConfigError

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest line read: one OTLP batch or one logged call; a longer one is refused."""

FIX = "give an OTLP JSON export (one ExportTraceServiceRequest per line) or a JSONL chat log"
_TOO_DEEP = "the JSON nests too deeply to read (a trace nests a few levels)"


def json_records(path: Path) -> Iterator[tuple[int, Any]]:
    """Each non-blank line's JSON value with its line number; a whole-file JSON document once.

    A file whose first record spreads over several lines (a pretty-printed OTLP export) is
    read whole, when it is at most MAX_LINE_BYTES. Raises ConfigError, located, for a binary
    file, a line that is not JSON, or one too long.
    """
    records = 0
    with path.open("rb") as file:
        for number, raw in _lines(file, path.name):
            if not raw.strip():
                continue
            records += 1
            text = _text(raw, path.name, number).rstrip("\r\n")
            try:
                value = json.loads(text)
            except RecursionError:
                raise ConfigError(f"{path.name}:{number}: {_TOO_DEEP}; {FIX}") from None
            except json.JSONDecodeError as exc:
                if records == 1 and text.lstrip()[:1] in ("{", "["):
                    yield number, _document(path, number)
                    return
                raise ConfigError(
                    f"{path.name}:{number}:{exc.colno}: not JSON ({exc.msg}); {FIX}"
                ) from None
            yield number, value
    if not records:
        raise ConfigError(f"{path.name}: the file holds no JSON record; {FIX}")


def _lines(file: Any, shown: str) -> Iterator[tuple[int, bytes]]:
    number = 0
    while raw := file.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise ConfigError(
                f"{shown}:{number}: the line is longer than {MAX_LINE_BYTES // 2**20} MiB; "
                "write one record (one OTLP batch, one logged call) per line"
            )
        yield number, raw


def _text(raw: bytes, shown: str, number: int) -> str:
    """The line as text; binary data (a NUL byte, bytes that are not UTF-8) is refused."""
    try:
        if b"\0" in raw:
            raise UnicodeDecodeError("utf-8", raw, raw.index(b"\0"), raw.index(b"\0") + 1, "NUL")
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{shown}:{number}:{exc.start + 1}: binary data, not text; {FIX}"
        ) from None


def _document(path: Path, start: int) -> Any:
    """The whole file as one JSON document (a pretty-printed export), bounded in size."""
    if path.stat().st_size > MAX_LINE_BYTES:
        raise ConfigError(
            f"{path.name}:{start}: a JSON document over several lines larger than "
            f"{MAX_LINE_BYTES // 2**20} MiB is not read whole; write one batch per line, "
            f"e.g. jq -c '.resourceSpans[] | {{resourceSpans: [.]}}' {path.name}"
        )
    text = _text(path.read_bytes(), path.name, 1)
    try:
        value = json.loads(text)
    except RecursionError:
        raise ConfigError(f"{path.name}:{start}: {_TOO_DEEP}; {FIX}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path.name}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); {FIX}"
        ) from None
    return value
