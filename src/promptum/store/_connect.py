"""Opening the SQLite file: WAL, a generous busy timeout and foreign keys, every time."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from promptum.errors import StoreError

BUSY_TIMEOUT_S = 30.0
"""How long a writer waits for another process's write to finish before giving up."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (each statement commits unless inside BEGIN)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(
            f"{path}: cannot open the run store: {exc}; "
            "set PROMPTUM_DB (or --db) to a writable file"
        ) from None
    try:
        # WAL lets the viewer read while a run writes, and writers from two processes queue on
        # the busy timeout instead of failing. NORMAL sync keeps every committed result through
        # a crash of the process (only a power cut can lose the last few).
        _wal(connection)
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("PRAGMA foreign_keys=ON")
    except sqlite3.DatabaseError as exc:
        connection.close()
        if "readonly" in str(exc):
            raise StoreError(
                f"{path}: the run store is read-only ({exc}); promptum writes to it and beside "
                "it (its -wal and -shm files): make the file and its folder writable, or copy "
                "it and point PROMPTUM_DB (or --db) at the copy"
            ) from None
        raise StoreError(
            f"{path}: not a promptum run store ({exc}); "
            "point PROMPTUM_DB (or --db) at another file, or move this one away"
        ) from None
    return connection


def _wal(connection: sqlite3.Connection) -> None:
    """Switch to WAL, waiting for another process that is creating the same file.

    Turning a new database to WAL needs it to itself, and SQLite answers "database is
    locked" at once rather than through the busy timeout: two runs starting together on a
    new store would otherwise fail the second.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
