"""No API key from the environment reaches the store through a review someone typed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from promptum.foundations.redaction import REDACTED
from promptum.reporting import render_report, write_report
from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record

KEY = "sk-proj-Th1sIsAFakeKeyThatMustNeverBeWritten0123"


def test_a_key_pasted_into_a_review_is_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    store = RunStore(tmp_path / "runs.sqlite")
    record(store, make_run("run-a", mixed_outcomes()))
    stored = store.add_review(
        Review("run-a", "capital-0", None, LOCAL, 1, override="fail", reviewer=f"ada {KEY}",
               reason=f"it leaked {KEY}", comment=f"key: {KEY}!")
    )  # fmt: skip
    assert (stored.comment, stored.reason, stored.reviewer) == (
        f"key: {REDACTED}!", f"it leaked {REDACTED}", f"ada {REDACTED}",
    )  # fmt: skip
    assert store.reviews("run-a") == [stored]
    assert KEY.encode() not in Path(store.path).read_bytes()
    with sqlite3.connect(store.path) as connection:
        dumped = "\n".join(connection.iterdump())
    assert KEY not in dumped


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("reason", {"a": "b"}, "reason must be text, not dict"),
        ("comment", ["x"], "comment must be text, not list"),
        ("comment", "bad \udc80 byte", "comment is not valid text"),
        ("reviewer", 7, "reviewer must be text, not int"),
        ("variant", 3, "variant must be text, not int"),
    ],
)
def test_a_review_of_the_wrong_type_is_a_value_error(
    field: str, value: object, message: str
) -> None:
    given: dict[str, object] = {
        "run_id": "run-a", "case_key": "capital-0", "variant": None, "model": LOCAL,
        "repeat": 1, "override": "pass", "reason": "fine", "reviewer": "ada",
    }  # fmt: skip
    given[field] = value
    with pytest.raises(ValueError, match=message):
        Review(**given)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["run.json", "run.html"])
def test_a_key_in_reviews_given_to_a_report_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # set after the review was stored, say
    run = make_run("run-a", mixed_outcomes())
    given = Review("run-a", "capital-0", None, LOCAL, 1, verdict="bad", comment=f"{KEY}?",
                   reviewer="ada")  # fmt: skip
    reviews = {given.result_key: [given]}
    path = tmp_path / name
    write_report(run, path, reviews=reviews)
    written = path.read_text(encoding="utf-8")
    assert KEY not in written
    assert f"{REDACTED}?" in written
    assert KEY not in render_report(run, name.split(".")[1], reviews=reviews)
