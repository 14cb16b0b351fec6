"""People's reviews of stored results: written only for a result that exists, read beside it."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from promptum.errors import StoreError
from promptum.foundations.redaction import environment_secrets
from promptum.store._rows import results_from_json, timestamp
from promptum.values.reviews import ResultKey, Review, ReviewedResult, SkippedReview, shown_value

_FIELDS = tuple(field.name for field in dataclasses.fields(Review))
"""The columns of a review's row: `Review`'s fields, in their order."""
_COLUMNS = ", ".join(_FIELDS)
_LONGEST_PROBLEM = 200
"""How much of what is wrong with a stored review row is kept to be said."""
# One result, by the store's unique key (an index seek, not a scan of the run's results).
_LOOKUP = (
    "SELECT seq, suite, data FROM results WHERE run_id = ? AND suite = ? AND case_id = ?"
    " AND variant = ? AND model = ? AND repeat = ?"
)


def _created_at(value: object) -> datetime | None:
    """The stored time of a review, or None when it is not an ISO 8601 date and time."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _review(row_id: int, row: tuple[Any, ...]) -> Review | SkippedReview:
    """The review a stored row holds, or why it holds none.

    The database refuses such rows since migration 0006, but a store may hold older ones (or
    rows a hand edit wrote): one of them must not make every page and command that reads
    reviews fail.
    """
    created_at = _created_at(row[12])
    if created_at is None:
        return SkippedReview(
            row_id, str(row[0]), f"created_at {shown_value(row[12])} is not a date"
        )
    try:
        fields = dict(zip(_FIELDS, row, strict=True))  # the columns are its fields
        return Review(**{**fields, "created_at": created_at})
    except (ValueError, TypeError) as exc:  # Review's own words: "repeat must be ..."
        problem = str(exc)
        if len(problem) > _LONGEST_PROBLEM:  # it may quote a stored value of any size
            problem = problem[: _LONGEST_PROBLEM - 1] + "…"
        return SkippedReview(row_id, str(row[0]), problem)


def _read(rows: Sequence[tuple[Any, ...]]) -> tuple[list[Review], list[SkippedReview]]:
    """The reviews of `rows` (each its id, then `_COLUMNS`), and the rows that hold none."""
    reviews, skipped = [], []
    for row_id, *columns in rows:
        read = _review(row_id, tuple(columns))
        if isinstance(read, Review):
            reviews.append(read)
        else:
            skipped.append(read)
    return reviews, skipped


def _splits(case_key: str) -> list[tuple[str, str]]:
    """The (suite, case id) pairs a key ``suite/case`` (or a bare case id) may stand for."""
    return [("", case_key)] + [
        (case_key[:at], case_key[at + 1 :])
        for at, char in enumerate(case_key)
        if char == "/" and at
    ]


def stored_result(
    connection: sqlite3.Connection, run_id: str, key: ResultKey
) -> tuple[int, str, str] | None:
    """The sequence number, suite and JSON of the result of run `run_id` `key` names, or None."""
    case_key, variant, model, repeat = key
    if not 0 < repeat < 2**63:  # no such repeat, and SQLite could not even be asked
        return None
    for suite, case_id in _splits(case_key):
        row = connection.execute(
            _LOOKUP, (run_id, suite, case_id, variant or "", model, repeat)
        ).fetchone()
        if row is not None:
            return int(row[0]), str(row[1]), str(row[2])
    return None


def _result_data(connection: sqlite3.Connection, review: Review) -> str | None:
    found = stored_result(connection, review.run_id, review.result_key)
    return None if found is None else found[2]


def _refusal(connection: sqlite3.Connection, path: Path, review: Review) -> str | None:
    """Why `review` cannot be stored (its run, result or criterion does not exist), or None."""
    run = connection.execute("SELECT 1 FROM runs WHERE run_id = ?", (review.run_id,)).fetchone()
    if run is None:
        return f"{path}: no run {review.run_id!r} to review (give the run's full id)"
    data = _result_data(connection, review)
    variant = f", variant {review.variant!r}" if review.variant else ""
    where = f"case {review.case_key!r}{variant}, model {review.model!r}, repeat {review.repeat}"
    if data is None:
        return f"run {review.run_id} has no result for {where}: nothing to review"
    if review.criterion is not None:
        (result,) = results_from_json([data])
        criteria = [g.name for g in result.grades if g.kind == "judge"]
        if review.criterion not in criteria:
            known = ", ".join(map(repr, criteria)) or "none: it was not judged"
            return (
                f"the result for {where} has no judge criterion {review.criterion!r} "
                f"(its criteria: {known}); leave criterion empty to review the whole result"
            )
    return None


def add_review(connection: sqlite3.Connection, path: Path, review: Review) -> Review:
    """Store `review`, after checking in the same transaction that what it names exists.

    The environment's secrets are replaced in its texts first: what is stored is returned.
    """
    review = review.scrubbed(environment_secrets())
    connection.execute("BEGIN IMMEDIATE")
    try:
        problem = _refusal(connection, path, review)
        if problem is not None:
            raise StoreError(problem)
        row = {name: getattr(review, name) for name in _FIELDS}
        row.update(variant=review.variant or "", created_at=timestamp(review.created_at))
        connection.execute(
            f"INSERT INTO reviews ({_COLUMNS}) VALUES ({', '.join('?' * len(row))})",
            tuple(row.values()),
        )
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return review


def run_reviews(connection: sqlite3.Connection, run_id: str) -> list[Review]:
    """The reviews of one run, oldest first (rows that hold no review left out)."""
    rows = connection.execute(
        f"SELECT id, {_COLUMNS} FROM reviews WHERE run_id = ? ORDER BY id", (run_id,)
    ).fetchall()
    return _read(rows)[0]


def skipped_reviews(connection: sqlite3.Connection, run_ids: Sequence[str]) -> list[SkippedReview]:
    """The review rows of `run_ids` (all runs when empty) that hold no review, oldest first."""
    sql = f"SELECT id, {_COLUMNS} FROM reviews"
    if run_ids:
        sql += f" WHERE run_id IN ({', '.join('?' * len(run_ids))})"
    return _read(connection.execute(sql + " ORDER BY id", list(run_ids)).fetchall())[1]


def by_result(reviews: Sequence[Review]) -> dict[ResultKey, list[Review]]:
    """Reviews grouped by the result they review, each group oldest first."""
    grouped: dict[ResultKey, list[Review]] = {}
    for review in reviews:
        grouped.setdefault(review.result_key, []).append(review)
    return grouped


_Entry = tuple[tuple[str, int], str, str, list[Review]]
"""A reviewed result: (run order, recorded order), its run's suite, its JSON, its reviews."""


def _entry(
    connection: sqlite3.Connection, review: Review, run: tuple[str, str], suite: str | None
) -> _Entry | None:
    """The result `review` reviews, with no review yet; None if gone or of another suite."""
    run_suite, started_at = run
    stored = stored_result(connection, review.run_id, review.result_key)
    if stored is None or (suite and suite not in (stored[1], run_suite)):
        return None
    return (started_at, stored[0]), run_suite, stored[2], []


def reviewed(
    connection: sqlite3.Connection, run_ids: Sequence[str], suite: str | None
) -> list[ReviewedResult]:
    """Every reviewed result of `run_ids` (all runs when empty), optionally of one suite.

    Results in run order (oldest run first, then as recorded), each with its reviews oldest
    first. Each result is found by its key, so the cost follows the reviews, not the runs.
    Rows that hold no review are left out (`skipped_reviews` says which).
    """
    sql = (
        f"SELECT r.suite, r.started_at, v.id, {', '.join('v.' + c for c in _FIELDS)}"
        " FROM reviews AS v JOIN runs AS r ON r.run_id = v.run_id"
    )
    if run_ids:
        sql += f" WHERE v.run_id IN ({', '.join('?' * len(run_ids))})"
    rows = connection.execute(sql + " ORDER BY v.id", list(run_ids)).fetchall()
    # By result: (run order, recorded order), the run's suite, the result's JSON, its reviews;
    # None for a result of another suite.
    found: dict[tuple[str, ResultKey], _Entry | None] = {}
    for run_suite, started_at, row_id, *columns in rows:
        review = _review(row_id, tuple(columns))
        if not isinstance(review, Review):
            continue  # said by `skipped_reviews`
        which = (review.run_id, review.result_key)
        if which not in found:
            found[which] = _entry(connection, review, (run_suite, started_at), suite)
        entry = found[which]
        if entry is not None:
            entry[3].append(review)
    return _in_run_order(found)


def _in_run_order(found: dict[tuple[str, ResultKey], _Entry | None]) -> list[ReviewedResult]:
    """The reviewed results found, oldest run first, then as recorded."""
    kept = sorted(
        ((entry, run_id) for (run_id, _), entry in found.items() if entry is not None),
        key=lambda item: item[0][0],
    )
    results = results_from_json([entry[2] for entry, _ in kept])
    return [
        ReviewedResult(run_id, entry[1], result, tuple(entry[3]))
        for (entry, run_id), result in zip(kept, results, strict=True)
    ]
