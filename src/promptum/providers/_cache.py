"""The response cache: one SQLite file, safe when several processes use it at once.

A cache must never cost a run its results, so every SQLite problem (a locked, unreadable
or corrupt file, a damaged row) turns into a miss, never an exception; the first problem is
kept in `ResponseCache.problem` for the caller to show. Only successful provider answers are
stored, exactly as the model gave them, with their original latency, tokens and cost; keys never
contain an API key. An answer holding the value of a secret-looking environment variable is not
stored at all (masking it would replay an answer the model never gave); `skipped_secret` counts
those for the caller to show.

Reads and writes run on the caller's thread: each takes microseconds, less than handing it
to a worker thread would cost. Writes are gathered and committed together (every
`FLUSH_EVERY` entries or `FLUSH_AFTER_S` seconds, and on `close`): one transaction per answer
cost ~150 µs, most of a cached run's overhead. Entries not yet committed are still served.
Reads made in one turn of the event loop share one read transaction (a re-run served by the
cache reads its answers in one turn, or a few): a transaction of its own per read, its locks
taken and released, cost three times the read itself. It ends at the loop's next turn, before
the loop waits for anything, so no lock is held while a model is awaited.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import from_json

from promptum.foundations.model_json import model_json
from promptum.foundations.redaction import REDACTED, environment_secrets
from promptum.providers._base import ModelRequest
from promptum.providers._key_text import plain_key_text
from promptum.providers._keyed import not_keyed
from promptum.values.completion import Completion
from promptum.values.content import KEYED

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    completion TEXT NOT NULL
)
"""
# Bumped whenever the key or the stored form changes, so old entries are simply never hit.
_KEY_VERSION = "promptum-cache-v1"
_INSERT = "INSERT OR REPLACE INTO responses (key, created_at, completion) VALUES (?, ?, ?)"
# Versions of the stored form, in `PRAGMA user_version`. 1: entries are stored verbatim; before
# that, secrets in an answer were masked, so such entries would replay an altered answer.
_STORED_FORM = 1

FLUSH_EVERY = 32
"""Commit pending writes once this many have gathered."""
FLUSH_AFTER_S = 1.0
"""...or once the oldest has waited this long (checked on the next write)."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""What `json.dumps` with these options makes for every call, made once."""


def cache_key(request: ModelRequest, endpoint: str) -> str:
    """A hash of everything that decides the answer: endpoint, model, messages, parameters."""
    text = plain_key_text(request, endpoint, _KEY_VERSION)  # the usual request, written directly
    if text is None:
        text = _CANONICAL.encode(
            {
                "v": _KEY_VERSION,
                "endpoint": endpoint,
                "request": request.model_dump(
                    mode="json", exclude=not_keyed(request), context=KEYED
                ),
            }
        )
    return hashlib.sha256(text.encode()).hexdigest()


def _migrate(connection: sqlite3.Connection) -> None:
    """Bring a file written by an older promptum to the current stored form."""
    (version,) = connection.execute("PRAGMA user_version").fetchone()
    if version >= _STORED_FORM:
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        # Only masked entries differ from what the model said; the rest stay valid.
        connection.execute("DELETE FROM responses WHERE instr(completion, ?) > 0", (REDACTED,))
        connection.execute(f"PRAGMA user_version = {_STORED_FORM}")
    except sqlite3.Error:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


class ResponseCache:
    """Get and put completions by key; opened lazily, every failure is a miss."""

    def __init__(self, path: Path, ttl_s: float | None = None) -> None:
        self.path = path
        self.ttl_s = ttl_s
        self.problem: str | None = None
        """The first problem met (the cache then keeps going, or turns itself off)."""
        self._connection: sqlite3.Connection | None = None
        self._disabled = False
        self._pending: dict[str, tuple[float, Completion]] = {}
        self._reading_on: asyncio.AbstractEventLoop | None = None
        """The loop whose current turn's reads share the open read transaction, if any."""
        self._secrets: tuple[str, ...] | None = None
        self.skipped_secret = 0
        """How many answers were not stored because they held a secret from the environment."""

    def _connect(self) -> sqlite3.Connection | None:
        if self._connection is not None or self._disabled:
            return self._connection
        connection: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit: each put is its own tiny transaction, so a writer in another
            # process waits milliseconds, well within the 10 s busy timeout. WAL lets
            # readers go on while someone writes.
            connection = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute(_SCHEMA)
            _migrate(connection)
        except (OSError, sqlite3.Error) as exc:
            if connection is not None:
                connection.close()
            self._disable(f"response cache {self.path} is unusable and was skipped: {exc}")
            return None
        self._connection = connection
        return connection

    def _disable(self, problem: str) -> None:
        self._disabled = True
        self.problem = self.problem or problem
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _note(self, problem: str) -> None:
        self.problem = self.problem or problem

    def get(self, key: str) -> Completion | None:
        """The cached completion for ``key`` (marked ``cached``), or None."""
        if key in self._pending:
            return self._pending[key][1].model_copy(update={"cached": True})
        connection = self._connect()
        if connection is None:
            return None
        try:
            self._read_in_turn(connection)
            row = connection.execute(
                "SELECT created_at, completion FROM responses WHERE key = ?", (key,)
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            self._note(f"response cache {self.path}: read failed, treated as a miss: {exc}")
            return None
        if row is None:
            return None
        created_at, stored = row
        if self.ttl_s is not None and time.time() - float(created_at) > self.ttl_s:
            return None
        try:
            # Marked while validated: a copy made to mark it cost more than the validation.
            return Completion.model_validate({**from_json(stored), "cached": True})
        except (ValidationError, ValueError, TypeError):
            self._note(f"response cache {self.path}: a damaged entry was skipped")
            return None

    def _read_in_turn(self, connection: sqlite3.Connection) -> None:
        """Read in the transaction of this turn of the event loop, begun by its first read.

        Outside a running loop each read is its own transaction, as SQLite makes it.
        """
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and loop is self._reading_on:
            return
        self._end_reads()  # begun on a loop that has closed since: its turn is over
        if loop is None:
            return
        connection.execute("BEGIN")
        self._reading_on = loop
        loop.call_soon(self._end_reads)

    def _end_reads(self) -> None:
        """End the turn's read transaction, if one is open (its locks are released)."""
        if self._reading_on is None:
            return
        self._reading_on = None
        if self._connection is None:  # closed meanwhile, which ended it
            return
        try:
            self._connection.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._note(f"response cache {self.path}: a read failed to end: {exc}")

    def put(self, key: str, completion: Completion) -> None:
        """Store a successful completion (errors are never cached); committed in batches.

        A completion holding a secret from the environment is counted in `skipped_secret`
        and not stored.
        """
        if completion.error is not None or completion.cached or self._disabled:
            return
        if self._secrets is None:
            # Read once: the environment of a run does not change, and this costs ~70 µs.
            self._secrets = environment_secrets()
        if self._secrets:
            stored = model_json(completion)
            if any(secret in stored for secret in self._secrets):
                self.skipped_secret += 1
                return
        self._pending[key] = (time.time(), completion)
        oldest = next(iter(self._pending.values()))[0]
        if len(self._pending) >= FLUSH_EVERY or time.time() - oldest >= FLUSH_AFTER_S:
            self.flush()

    def flush(self) -> None:
        """Commit every pending write in one transaction."""
        if not self._pending:
            return
        rows = [(key, at, model_json(c)) for key, (at, c) in self._pending.items()]
        self._pending.clear()
        connection = self._connect()
        if connection is None:
            return
        self._end_reads()  # a write transaction cannot begin inside the turn's reads
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.executemany(_INSERT, rows)
            except sqlite3.DatabaseError:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._note(f"response cache {self.path}: write failed, entries not cached: {exc}")

    def close(self) -> None:
        """Commit pending writes and close the connection (it reopens if used again)."""
        self.flush()
        self._end_reads()
        if self._connection is not None:
            self._connection.close()
            self._connection = None
