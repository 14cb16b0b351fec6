"""`promptum judge calibrate` over a review row it cannot read: skipped and said, never fatal."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from promptum.cli import main
from tests.store.old_reviews import RUN, old_store, review_row


def test_a_malformed_created_at_is_skipped_and_the_rest_calibrated(tmp_path: Path) -> None:
    db = old_store(tmp_path / "runs.sqlite", review_row(created_at="xyz"))
    done = CliRunner().invoke(main, ["judge", "calibrate", "--db", str(db)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert done.exit_code == 0, done.output
    flat = " ".join(done.output.split())
    assert "warning: 1 review skipped: created_at 'xyz' is not a date (reviews row 2" in flat
    assert "Traceback" not in done.output
    assert "Judge calibration against people" in done.output  # bob's review still counts


def test_json_stays_parsable_and_lists_what_was_skipped(tmp_path: Path) -> None:
    db = old_store(tmp_path / "runs.sqlite", review_row(created_at="xyz"))
    done = CliRunner().invoke(main, ["judge", "calibrate", RUN, "--json", "--db", str(db)])
    assert done.exit_code == 0, done.output
    printed = json.loads(done.stdout)
    assert [row["n"] for row in printed["calibration"]] == [1]
    assert printed["skipped_reviews"] == [
        {"row": 2, "run_id": RUN, "problem": "created_at 'xyz' is not a date"}
    ]
    assert "1 review skipped" in done.stderr


def test_only_unreadable_reviews_say_both_what_was_skipped_and_that_none_is_left(
    tmp_path: Path,
) -> None:
    db = old_store(tmp_path / "runs.sqlite", review_row(created_at="xyz"))
    done = CliRunner().invoke(main, ["judge", "calibrate", "--criterion", "nope", "--db", str(db)])
    assert done.exit_code == 2, done.output
    assert "1 review skipped: created_at 'xyz' is not a date" in " ".join(done.stderr.split())
    assert "error: no reviews of answers the judge graded on 'nope'" in done.stderr
    assert "Traceback" not in done.output
