"""A store of the schema before reviews were checked by the database, holding rows that break
those checks: as a hand edit, a script or another tool could have left them."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

from promptum.store import MIGRATIONS, RunStore, migrate
from promptum.store._connect import connect
from promptum.values.reviews import Review
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record

RUN = "run-a"
GOOD_AT = "2026-12-01T12:00:00+00:00"
BEFORE_CHECKS = MIGRATIONS[: [m.name for m in MIGRATIONS].index("0005_reviews") + 1]
"""The migrations of the promptum that stored any text as a review's created_at."""

_INSERT = (
    "INSERT INTO reviews (run_id, case_key, variant, model, repeat, criterion, verdict,"
    " override, score, comment, reason, reviewer, created_at)"
    " VALUES (:run_id, :case_key, '', :model, :repeat, :criterion, :verdict, :override,"
    " :score, :comment, :reason, :reviewer, :created_at)"
)


def review_row(**change: object) -> dict[str, object]:
    """The columns of a valid review of `RUN`'s capital-0 on the local model, with `change`."""
    row: dict[str, object] = {
        "run_id": RUN, "case_key": "capital-0", "model": LOCAL, "repeat": 1, "criterion": None,
        "verdict": "bad", "override": None, "score": None, "comment": None, "reason": None,
        "reviewer": "ada", "created_at": GOOD_AT,
    }  # fmt: skip
    row.update(change)
    return row


def insert_rows(path: Path, rows: list[Mapping[str, object]]) -> None:
    """Insert review rows as written, past every check promptum makes."""
    with sqlite3.connect(path) as connection:
        connection.executemany(_INSERT, rows)
    connection.close()


def old_store(path: Path, *bad: Mapping[str, object]) -> Path:
    """A store before the checks with one run, one valid review and the `bad` rows after it."""
    connection = connect(path)
    migrate(connection, path, BEFORE_CHECKS)
    connection.close()
    old = RunStore.__new__(RunStore)
    old.path = path  # as the earlier promptum opened it: no migration of this one applied
    record(old, make_run(RUN, mixed_outcomes()))
    old.add_review(Review(RUN, "capital-1", None, LOCAL, 1, verdict="bad", reviewer="bob"))
    insert_rows(path, list(bad))
    return path
