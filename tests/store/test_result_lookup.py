"""One stored result by its key (what reviews name), found by the store's index, not a scan."""

from __future__ import annotations

from pathlib import Path

from promptum.store import RunStore
from promptum.values.reviews import Review, result_key
from tests.store.samples import LOCAL, make_run, mixed_outcomes
from tests.store.test_store import record


def test_a_result_is_found_by_its_key_whatever_slashes_it_holds(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run = make_run("run-a", mixed_outcomes(cases=3, repeats=1))
    first, second, third = run.results[:3]
    run.results[:3] = [
        first.model_copy(update={"suite": "geo", "case_id": "eu/capital"}),  # geo/eu/capital
        second.model_copy(update={"suite": "", "case_id": "plain/id"}),  # plain/id
        third.model_copy(update={"suite": "geo/eu", "case_id": "town"}),  # geo/eu/town
    ]
    record(store, run)
    for result in run.results[:3]:
        found = store.result("run-a", result_key(result))
        assert found is not None
        assert (found.suite, found.case_id) == (result.suite, result.case_id)
    assert store.result("run-a", ("geo/eu/nothing", None, LOCAL, 1)) is None
    assert store.result("run-a", ("geo/eu/capital", None, LOCAL, 10**30)) is None
    assert store.result("run-b", ("geo/eu/capital", None, LOCAL, 1)) is None
    key = result_key(run.results[2])
    store.add_review(Review("run-a", *key, verdict="good", reviewer="ada"))
    (reviewed,) = store.reviewed(suite="geo/eu")
    assert reviewed.result.key == "geo/eu/town"
