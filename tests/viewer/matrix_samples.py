"""Runs for the matrix and trends tests: suites, variants, tags, must-pass, flaky and hostile
cases, recorded through the store's recorder the way a run writes them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from promptum.store import RunStore
from promptum.values.run_result import CaseResult, RunResult
from tests.store.samples import GPT, LOCAL, T0, make_result, make_run, mixed_outcomes
from tests.store.test_store import record
from tests.viewer.serving import served_app

# The HTML report tests' hostile strings (tests/reporting/report_samples.py), copied: that
# module imports the runner, which these tests do not need.
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
PWN = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'
PAYLOADS = (SCRIPT, IMG, PWN)
HOSTILE = "".join(PAYLOADS)


def _placed(result: CaseResult, *, suite: str) -> CaseResult:
    """`result` in `suite`, with the local model's results run as the variant ``terse``."""
    variant = "terse" if result.model == LOCAL else None
    return result.model_copy(
        update={
            "suite": suite,
            "variant": variant,
            "must_pass": result.case_id == "capital-1",
        }
    )


def geo_run(run_id: str, *, worse: bool, hours: int) -> RunResult:
    """Six geography cases on two columns (one flaky, one error), and a `math` case.

    With `worse`, capital-0 and capital-3 fail on the local model, and a hostile case whose
    id, tag and answer carry every payload is added.
    """
    outcomes = mixed_outcomes(cases=6, repeats=3)
    if worse:
        outcomes = {**outcomes, ("capital-0", LOCAL): ["fail"] * 3}
        outcomes = {**outcomes, ("capital-3", LOCAL): ["fail"] * 3}
    run = make_run(run_id, outcomes, started=T0 + timedelta(hours=hours), suite="geo")
    results = [_placed(r, suite="geo") for r in run.results]
    math = make_result("add-0", GPT, "pass").model_copy(update={"suite": "math", "tags": ["math"]})
    results.append(math)
    if worse:
        hostile = make_result(HOSTILE, GPT, "fail")
        completion = hostile.completion.model_copy(update={"text": f"Lyon {HOSTILE}"})
        results.append(
            hostile.model_copy(update={"suite": "geo", "tags": [IMG], "completion": completion})
        )
    return run.model_copy(update={"results": results})


def many_run(run_id: str, cases: int) -> RunResult:
    """`cases` cases on one model, every fourth failing."""
    outcomes = {(f"case-{i:04d}", LOCAL): ["fail" if i % 4 == 0 else "pass"] for i in range(cases)}
    return make_run(run_id, outcomes, started=T0 - timedelta(days=1), suite="many")


def trend_runs() -> list[RunResult]:
    """Three runs of suite `trend`: steady, then a significant fall on the local model."""
    runs = []
    for number, status in enumerate(["pass", "pass", "fail"]):
        outcomes = {(f"t-{i}", LOCAL): [status] for i in range(30)}
        outcomes |= {(f"t-{i}", GPT): ["pass"] for i in range(30)}
        started = T0 + timedelta(days=1 + number)
        runs.append(make_run(f"trend-{number}", outcomes, started=started, suite="trend"))
    return runs


def fill(store: RunStore) -> None:
    """The matrix tests' store."""
    record(store, geo_run("geo-base", worse=False, hours=0))
    record(store, geo_run("geo-next", worse=True, hours=1))
    record(store, many_run("many", 120))
    for run in trend_runs():
        record(store, run)


@contextmanager
def serving(store: RunStore) -> Iterator[str]:
    """The viewer of `store` on a free port of 127.0.0.1, in a thread; yields its URL."""
    from promptum.viewer import create_app

    with served_app(create_app(store)) as port:
        yield f"http://127.0.0.1:{port}"
