"""Review rows promptum would never write: skipped and said when read, refused by the database."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptum.store import RunStore
from promptum.values.reviews import MAX_COMMENT, MAX_FIELD, Review, skipped_note
from tests.store.old_reviews import RUN, insert_rows, old_store, review_row
from tests.store.samples import LOCAL


def test_a_malformed_created_at_is_skipped_and_counted_not_fatal(tmp_path: Path) -> None:
    store = RunStore(old_store(tmp_path / "runs.sqlite", review_row(created_at="xyz")))
    assert [r.reviewer for r in store.reviews(RUN)] == ["bob"]
    assert list(store.reviews_by_result(RUN)) == [("capital-1", None, LOCAL, 1)]
    assert [item.result.case_id for item in store.reviewed()] == ["capital-1"]
    [skipped] = store.skipped_reviews()
    assert (skipped.row, skipped.run_id) == (2, RUN)
    assert skipped.problem == "created_at 'xyz' is not a date"
    assert store.skipped_reviews([RUN]) == [skipped]
    note = skipped_note([skipped])
    assert note is not None
    assert note.startswith("1 review skipped: created_at 'xyz' is not a date (reviews row 2")


def test_the_migration_keeps_bad_rows_and_the_database_refuses_new_ones(tmp_path: Path) -> None:
    path = old_store(tmp_path / "runs.sqlite", review_row(created_at="xyz"))
    store = RunStore(path)
    with sqlite3.connect(path) as connection:
        kept = connection.execute("SELECT created_at FROM reviews ORDER BY id").fetchall()
    assert kept == [(store.reviews(RUN)[0].created_at.isoformat(),), ("xyz",)]
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        insert_rows(path, [review_row(created_at="yesterday")])
    insert_rows(path, [review_row()])  # a valid row still goes in
    assert len(store.reviews(RUN)) == 2


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"created_at": "xyz"}, "created_at 'xyz' is not a date"),
        ({"created_at": "2026-02-30T10:00:00+00:00"}, "is not a date"),
        ({"created_at": "2026-13-01"}, "is not a date"),
        ({"created_at": "now"}, "is not a date"),
        ({"created_at": "12345"}, "is not a date"),
        ({"created_at": b"2026-12-01"}, "is not a date"),
        ({"repeat": 0}, "repeat must be a whole number from 1"),
        ({"repeat": "one"}, "repeat must be a whole number from 1"),
        ({"verdict": None, "override": "fail"}, "an override needs a reason"),
        ({"verdict": None, "override": "fail", "reason": "   "}, "an override needs a reason"),
        ({"reviewer": " "}, "a review needs a reviewer"),
        ({"case_key": ""}, "a review needs case_key"),
        ({"model": " "}, "a review needs model"),
        ({"comment": "x" * (MAX_COMMENT + 1)}, "comment is 4001 characters"),
        ({"reason": "x" * (MAX_COMMENT + 1)}, "reason is 4001 characters"),
        ({"criterion": "c" * (MAX_FIELD + 1)}, "criterion is 201 characters"),
        ({"reviewer": "r" * (MAX_FIELD + 1)}, "reviewer is 201 characters"),
    ],
)
def test_each_rule_of_a_review_is_kept_by_the_reader_and_by_the_database(
    tmp_path: Path, change: dict[str, object], problem: str
) -> None:
    path = old_store(tmp_path / "runs.sqlite", review_row(**change))
    store = RunStore(path)
    [skipped] = store.skipped_reviews([RUN])
    assert problem in skipped.problem
    assert len(store.reviews(RUN)) == 1  # the valid one
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        insert_rows(path, [review_row(**change)])


@pytest.mark.parametrize(
    "change",
    [{"score": 1.5}, {"score": -0.1}, {"score": "high"}, {"verdict": "meh"}, {"override": "maybe"},
     {"verdict": None}],
)  # fmt: skip
def test_the_checks_the_first_schema_had_still_refuse(
    tmp_path: Path, change: dict[str, object]
) -> None:
    store = RunStore(old_store(tmp_path / "runs.sqlite"))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
        insert_rows(store.path, [review_row(**change)])
    assert store.skipped_reviews() == []


def test_several_skipped_rows_are_counted_and_their_problems_listed(tmp_path: Path) -> None:
    bad = [review_row(created_at=f"bad-{n}") for n in range(5)]
    store = RunStore(old_store(tmp_path / "runs.sqlite", *bad))
    note = skipped_note(store.skipped_reviews())
    assert note is not None
    assert note.startswith("5 reviews skipped: created_at 'bad-0' is not a date (reviews row 2")
    assert "created_at 'bad-2' is not a date" in note
    assert "bad-3" not in note  # three are listed, the rest counted
    assert "and 2 more" in note
    assert skipped_note([]) is None


@pytest.mark.parametrize("column", ["created_at", "repeat"])
def test_a_long_hostile_value_is_cut_in_the_note(tmp_path: Path, column: str) -> None:
    value = "<script>alert(1)</script>" + "x" * 5000
    store = RunStore(old_store(tmp_path / "runs.sqlite", review_row(**{column: value})))
    note = skipped_note(store.skipped_reviews())
    assert note is not None
    assert "'<script>alert(1)</script>xxx" in note
    assert len(note) < 400


def test_a_review_at_every_limit_is_stored(tmp_path: Path) -> None:
    store = RunStore(old_store(tmp_path / "runs.sqlite"))
    at_limits = Review(
        RUN, "capital-0", None, LOCAL, 1, criterion="judge", override="fail",
        reason="😀" * MAX_COMMENT, comment="é" * MAX_COMMENT, reviewer="r" * MAX_FIELD, score=1,
    )  # fmt: skip
    assert store.add_review(at_limits) == store.reviews(RUN)[-1]


_texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    score=st.none() | st.floats(0, 1),
    verdict=st.sampled_from(["good", "bad", None]),
    override=st.sampled_from(["pass", "fail", None]),
    reason=_texts.filter(lambda t: t.strip()),
    comment=st.none() | _texts,
    reviewer=_texts.filter(lambda t: t.strip()),
    when=st.datetimes(
        min_value=datetime(1900, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
    offset=st.integers(-14 * 60, 14 * 60),
)
def test_every_review_promptum_accepts_the_database_accepts(
    tmp_path: Path,
    score: float | None,
    verdict: str | None,
    override: str | None,
    reason: str,
    comment: str | None,
    reviewer: str,
    when: datetime,
    offset: int,
) -> None:
    if verdict is None and override is None:
        verdict = "good"
    path = tmp_path / "runs.sqlite"
    if not path.exists():
        old_store(path)
    store = RunStore(path)
    local = when.astimezone(timezone(timedelta(minutes=offset)))
    given_review = Review(
        RUN, "capital-0", None, LOCAL, 1, verdict=verdict, override=override,  # type: ignore[arg-type]
        score=score, reason=reason, comment=comment, reviewer=reviewer, created_at=local,
    )  # fmt: skip
    stored = store.add_review(given_review)
    assert store.reviews(RUN)[-1] == stored
    assert store.skipped_reviews() == []
