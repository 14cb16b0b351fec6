"""The store's schema as ordered, named migrations, each applied once and recorded by name.

A migration is never edited once released: a change to the schema is a new migration
appended to `MIGRATIONS`. A database that records a migration this promptum does not know
was written by a newer promptum, and is refused rather than misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from promptum.errors import StoreError


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: a unique name and the SQL that takes the database there."""

    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "0001_runs_and_results",
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            suite TEXT NOT NULL,
            models TEXT NOT NULL,               -- JSON list, in the run's order
            started_at TEXT NOT NULL,           -- ISO 8601 in UTC, so text order is time order
            finished_at TEXT,                   -- NULL while running or after a crash
            complete INTEGER NOT NULL DEFAULT 0,
            config TEXT NOT NULL,               -- JSON, secrets removed
            promptum_version TEXT,
            git_commit TEXT,
            -- Counts, written when the run finishes so listing runs reads no results;
            -- NULL until then (they are counted from the results meanwhile).
            total INTEGER,
            passed INTEGER,
            failed INTEGER,
            errors INTEGER
        );
        CREATE INDEX runs_by_start ON runs (started_at);
        -- Two b-trees only (the rows, and the unique key starting with the run): each index
        -- more makes every commit write more pages, and results are committed one by one.
        -- A case's history seeks (run, case) once per run instead of using an index of its own.
        CREATE TABLE results (
            seq INTEGER PRIMARY KEY,            -- arrival order
            run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            case_id TEXT NOT NULL,
            model TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'error')),
            latency_ms REAL,
            cost_usd REAL,
            judge_score REAL,
            data TEXT NOT NULL,                 -- the whole CaseResult as JSON
            UNIQUE (run_id, case_id, model, repeat)
        );
        """,
    ),
    Migration(
        "0002_runs_git_dirty",
        """
        -- Whether tracked files had uncommitted changes when the run started (1 or 0): the
        -- commit alone does not say what ran. NULL outside a repository, and for runs
        -- recorded before promptum asked.
        ALTER TABLE runs ADD COLUMN git_dirty INTEGER;
        """,
    ),
    Migration(
        "0003_results_suite_variant_repeat_from_one",
        """
        -- Case ids are unique within a suite, and a case runs once per prompt variant: both
        -- join the unique key ('' for results without them). Repeats are numbered from 1, as
        -- every report shows them; results stored before counted from 0 and are shifted.
        CREATE TABLE results_0003 (
            seq INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            suite TEXT NOT NULL DEFAULT '',
            case_id TEXT NOT NULL,
            variant TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'error')),
            latency_ms REAL,
            cost_usd REAL,
            judge_score REAL,
            data TEXT NOT NULL,
            UNIQUE (run_id, suite, case_id, variant, model, repeat)
        );
        INSERT INTO results_0003 (seq, run_id, suite, case_id, variant, model, repeat, status,
                                  latency_ms, cost_usd, judge_score, data)
        SELECT seq, run_id, '', case_id, '', model, repeat + 1, status, latency_ms, cost_usd,
               judge_score, json_set(data, '$.repeat', repeat + 1)
        FROM results;
        DROP TABLE results;
        ALTER TABLE results_0003 RENAME TO results;
        """,
    ),
    Migration(
        "0004_run_facts_and_plan_position",
        """
        -- The run's facts leave `config` (kept for the user's settings) for typed columns;
        -- git_commit and git_dirty had columns already and were copied into `config` too.
        ALTER TABLE runs ADD COLUMN planned_results INTEGER;
        ALTER TABLE runs ADD COLUMN resumed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]';  -- JSON list
        UPDATE runs SET
            planned_results = json_extract(config, '$.planned_results'),
            resumed = COALESCE(json_extract(config, '$.resumed'), 0),
            warnings = COALESCE(json_extract(config, '$.warnings'), '[]'),
            config = json_remove(config, '$.planned_results', '$.resumed', '$.warnings',
                                 '$.git_commit', '$.git_dirty');
        -- Where each result stands in the run's plan (case, variant, model, repeat): a run
        -- that streams its results loads them in suite order without holding them to sort.
        -- NULL for results stored before, which were renumbered in plan order instead.
        ALTER TABLE results ADD COLUMN position INTEGER;
        """,
    ),
    Migration(
        "0005_reviews",
        """
        -- People's reviews of results (docs/review.md), beside the grades and never changing
        -- them. A result is named as reports name it (suite/case key, variant, model,
        -- repeat; '' for no variant), so a review reads without joining the results.
        CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            case_key TEXT NOT NULL,
            variant TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            criterion TEXT,                     -- NULL: the whole result
            verdict TEXT CHECK (verdict IN ('good', 'bad')),
            override TEXT CHECK (override IN ('pass', 'fail')),
            score REAL CHECK (score BETWEEN 0 AND 1),
            comment TEXT,
            reason TEXT,
            reviewer TEXT NOT NULL,
            created_at TEXT NOT NULL,           -- ISO 8601 in UTC
            CHECK (verdict IS NOT NULL OR override IS NOT NULL)
        );
        CREATE INDEX reviews_by_run ON reviews (run_id, id);
        """,
    ),
    Migration(
        "0006_reviews_checked",
        """
        -- The database refuses a review row promptum would not read back as a review (its
        -- rules are `Review`'s, in docs/review.md): created_at any text, repeat 0, a blank
        -- reviewer or an override without reason went in before. Never stricter than `Review`:
        -- trim() removes spaces only, where Python's strip() removes all white space.
        CREATE TABLE reviews_0006 (
            id INTEGER PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            case_key TEXT NOT NULL CHECK (trim(case_key) <> ''),
            variant TEXT NOT NULL DEFAULT '',
            model TEXT NOT NULL CHECK (trim(model) <> ''),
            repeat INTEGER NOT NULL CHECK (typeof(repeat) = 'integer' AND repeat >= 1),
            criterion TEXT CHECK (length(criterion) <= 200),
            verdict TEXT CHECK (verdict IN ('good', 'bad')),
            override TEXT CHECK (override IN ('pass', 'fail')),
            score REAL CHECK (score BETWEEN 0 AND 1),
            comment TEXT CHECK (length(comment) <= 4000),
            reason TEXT CHECK (length(reason) <= 4000),
            reviewer TEXT NOT NULL CHECK (trim(reviewer) <> '' AND length(reviewer) <= 200),
            -- ISO 8601 in UTC; a real day (SQLite's own parser takes 2026-02-30, so the day is
            -- compared with the one its day number gives back).
            created_at TEXT NOT NULL CHECK (
                typeof(created_at) = 'text'
                AND created_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'
                AND julianday(created_at) IS NOT NULL
                AND date(julianday(substr(created_at, 1, 10))) = substr(created_at, 1, 10)
            ),
            CHECK (verdict IS NOT NULL OR override IS NOT NULL),
            CHECK (override IS NULL OR trim(coalesce(reason, '')) <> '')
        );
        -- Rows stored before that break these rules are kept as they are (they are the
        -- user's, and may be corrected): copied with checks off, and skipped, said, when read.
        PRAGMA ignore_check_constraints = ON;
        INSERT INTO reviews_0006 (id, run_id, case_key, variant, model, repeat, criterion,
                                  verdict, override, score, comment, reason, reviewer,
                                  created_at)
        SELECT id, run_id, case_key, variant, model, repeat, criterion, verdict, override,
               score, comment, reason, reviewer, created_at
        FROM reviews;
        PRAGMA ignore_check_constraints = OFF;
        DROP TABLE reviews;
        ALTER TABLE reviews_0006 RENAME TO reviews;
        CREATE INDEX reviews_by_run ON reviews (run_id, id);
        """,
    ),
)


def _statements(sql: str) -> list[str]:
    """The statements of a script, split where SQLite's own tokenizer says one ends.

    ``executescript`` would do this but commits first, outside the migration's transaction.
    """
    statements, pending = [], ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending)
            pending = ""
    if pending.strip():
        statements.append(pending)  # a last statement without its semicolon
    return statements


def _applied(connection: sqlite3.Connection) -> list[str]:
    connection.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    return [row[0] for row in connection.execute("SELECT name FROM schema_migrations")]


def migrate(
    connection: sqlite3.Connection, path: Path, migrations: Sequence[Migration] = MIGRATIONS
) -> list[str]:
    """Apply, in order, every migration the database lacks; returns the names applied."""
    # BEGIN IMMEDIATE takes the write lock first, so two processes opening a new database at
    # once do not both try to create the tables.
    connection.execute("BEGIN IMMEDIATE")
    try:
        applied = _applied(connection)
        unknown = sorted(set(applied) - {m.name for m in migrations})
        if unknown:
            raise StoreError(
                f"{path}: the run store was written by a newer promptum (it has migration "
                f"{unknown[0]}); upgrade promptum or set PROMPTUM_DB to another file"
            )
        done = []
        for migration in migrations:
            if migration.name in applied:
                continue
            try:
                for statement in _statements(migration.sql):
                    connection.execute(statement)
            except sqlite3.OperationalError as exc:
                if "readonly" not in str(exc):
                    raise
                raise StoreError(
                    f"{path}: the run store was written by an older promptum and needs "
                    f"migration {migration.name}, but it is read-only ({exc}): make it "
                    "writable once, or copy it and point PROMPTUM_DB (or --db) at the copy"
                ) from None
            connection.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                (migration.name, datetime.now(UTC).isoformat()),
            )
            done.append(migration.name)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        # A migration copying rows stored before its checks turns them off for the copy: a
        # failure in between must not leave them off on the caller's connection.
        connection.execute("PRAGMA ignore_check_constraints = OFF")
        raise
    return done
