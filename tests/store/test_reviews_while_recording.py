"""A review written while a run is still recording: both kept, neither blocks the other."""

from __future__ import annotations

import threading
from pathlib import Path

from promptum.store import RunStore
from promptum.values.reviews import Review
from tests.store.samples import make_run, mixed_outcomes


def test_reviews_of_a_run_still_recording(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run = make_run("run-a", mixed_outcomes(cases=40, repeats=2))
    results, shell = run.results, run.model_copy(update={"results": []})
    recorder = store.recorder()
    recorder.start(shell)
    half = len(results) // 2
    for result in results[:half]:
        recorder.add(result)
    # Another thread (as the viewer would) reviews what is recorded while the rest arrives.
    failures: list[BaseException] = []

    def review_recorded() -> None:
        try:
            for result in results[:half]:
                store.add_review(
                    Review("run-a", result.key, None, result.model, result.repeat,
                           verdict="good", reviewer="ada")
                )  # fmt: skip
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)

    reviewer = threading.Thread(target=review_recorded)
    reviewer.start()
    for result in results[half:]:
        recorder.add(result)
    reviewer.join(timeout=60)
    recorder.finish(run)
    assert failures == []
    assert len(store.reviews("run-a")) == half
    assert len(store.load("run-a").results) == len(results)
    assert {r.result.key for r in store.reviewed(["run-a"])} == {r.key for r in results[:half]}
