"""Reviews in the run store: written only for results that exist, never touching grades."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from promptum.store import MIGRATIONS, RunStore, StoreError, migrate
from promptum.store._connect import connect
from promptum.values.reviews import Review
from tests.store.samples import GPT, LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record

OLD_STORE = Path(__file__).parent.parent / "data" / "runs-before-run-facts.sqlite"
WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def review(run_id: str = "run-a", case_key: str = "capital-0", **fields: object) -> Review:
    values: dict[str, object] = {
        "run_id": run_id, "case_key": case_key, "variant": None, "model": LOCAL, "repeat": 1,
        "verdict": "good", "reviewer": "ada", "created_at": WHEN,
    }  # fmt: skip
    values.update(fields)
    return Review(**values)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, make_run("run-a", mixed_outcomes()))
    return store


def rows(store: RunStore, table: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(store.path) as connection:
        return connection.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def test_reviews_are_stored_beside_the_results_which_stay_as_they_were(store: RunStore) -> None:
    results_before = rows(store, "results")
    first = store.add_review(review(comment="<script>alert(1)</script>", score=0.8))
    second = store.add_review(
        review(
            case_key="capital-1",
            criterion="judge",
            verdict=None,
            override="pass",
            reason="Lyon is fine here",
            reviewer="bob",
        )
    )
    assert store.reviews("run-a") == [first, second]
    assert store.reviews("latest") == [first, second]
    assert rows(store, "results") == results_before  # recorded grades never change
    grouped = store.reviews_by_result("run-a")
    assert grouped == {
        ("capital-0", None, LOCAL, 1): [first],
        ("capital-1", None, LOCAL, 1): [second],
    }
    assert store.has_reviews()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"run_id": "nope"}, "no run 'nope' to review"),
        ({"run_id": "run"}, "no run 'run' to review"),  # a prefix is not enough to write
        ({"case_key": "capital-99"}, "run run-a has no result for case 'capital-99'"),
        ({"repeat": 7}, "has no result for case 'capital-0', model 'local/smollm2', repeat 7"),
        ({"variant": "v2"}, "variant 'v2'"),
        ({"model": GPT, "case_key": "capital-5", "criterion": "judge"}, "none: it was not judged"),
        ({"criterion": "polite"}, "no judge criterion 'polite' (its criteria: 'judge')"),
    ],
)
def test_a_review_of_what_does_not_exist_is_refused_and_nothing_written(
    store: RunStore, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(StoreError, match=message.replace("(", r"\(").replace(")", r"\)")):
        store.add_review(review(**fields))
    assert rows(store, "reviews") == []


def test_reviewed_results_across_runs_filtered_by_suite(store: RunStore) -> None:
    record(store, make_run("run-b", mixed_outcomes(), suite="other"))
    store.add_review(review(verdict="bad"))
    store.add_review(review(verdict="good"))
    store.add_review(review("run-b", "capital-2", repeat=2))
    everything = store.reviewed()
    assert [(item.run_id, item.result.key, len(item.reviews)) for item in everything] == [
        ("run-a", "capital-0", 2),
        ("run-b", "capital-2", 1),
    ]
    assert [r.verdict for r in everything[0].reviews] == ["bad", "good"]  # oldest first
    assert everything[1].result.repeat == 2
    assert [item.run_id for item in store.reviewed(suite="other")] == ["run-b"]
    assert [item.run_id for item in store.reviewed(["run-a"])] == ["run-a"]
    assert store.reviewed(["run-a"], suite="other") == []


def test_deleting_a_run_deletes_its_reviews(store: RunStore) -> None:
    store.add_review(review())
    store.delete("run-a")
    assert rows(store, "reviews") == []


def test_a_store_of_the_previous_schema_gains_reviews(tmp_path: Path) -> None:
    # Written with the migrations before reviews, by the recorder of this promptum.
    path = tmp_path / "runs.sqlite"
    connection = connect(path)
    migrate(connection, path, MIGRATIONS[:4])
    connection.close()
    old = RunStore.__new__(RunStore)
    old.path = path  # the store as the previous promptum opened it: no migration to apply
    record(old, make_run("run-a", mixed_outcomes()))
    before = rows(old, "results")

    store = RunStore(path)
    store.add_review(review())
    assert rows(store, "results") == before
    assert [r.verdict for r in store.reviews("run-a")] == ["good"]
    with sqlite3.connect(path) as db:
        names = [row[0] for row in db.execute("SELECT name FROM schema_migrations")]
    assert names[4:] == ["0005_reviews", "0006_reviews_checked"]


def test_an_old_store_opens_with_reviews_and_its_results_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    shutil.copy(OLD_STORE, path)
    store = RunStore(path)
    before = rows(store, "results")
    run = store.load("facts0000001")
    first = run.results[0]
    store.add_review(
        Review(run.run_id, first.key, None, first.model, first.repeat, verdict="bad", reviewer="x")
    )
    assert rows(store, "results") == before
    assert len(store.reviews(run.run_id)) == 1
