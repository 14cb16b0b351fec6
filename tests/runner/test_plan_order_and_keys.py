"""Results in plan order whatever order they finish in; resume and compare by ``suite/case``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from promptum import CaseResult, RunResult, Session
from promptum.cases import TestCase
from promptum.compare import compare_runs, variant_leads
from promptum.providers import ClientOptions, ModelRequest
from promptum.runner import Journal, Runner, plan_fingerprint
from promptum.store import RunStore
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.support.fault_server import FaultServer


class _Reversed:
    """A client whose first calls finish last: the finishing order is the plan's reversed."""

    def __init__(self, count: int) -> None:
        self.left = count

    def max_concurrency(self, model: str) -> int:
        return 32

    async def complete(self, request: ModelRequest) -> Completion:
        self.left -= 1
        await asyncio.sleep(0.01 * self.left)
        return Completion(text="ok", model=request.model)


def _cases() -> list[TestCase]:
    message = (Message(role="user", content="q"),)
    return [
        TestCase(
            id=f"c{i}", messages=message, models=("m1", "m2"), repeat=2, suite=suite, variant=v
        )
        for i in range(3)
        for suite in ("geo", "hist")
        for v in ("v1", "v2")
    ]


Keys = list[tuple[str, str, str, int]]


def _keys(results: list[CaseResult]) -> Keys:
    return [(r.key, r.variant or "", r.model, r.repeat) for r in results]


def _run_once(store: RunStore | None = None) -> tuple[Keys, Keys]:
    cases = _cases()
    arrived: list[CaseResult] = []

    class Sink:
        def start(self, run: RunResult) -> None: ...

        def add(self, result: CaseResult) -> None:
            arrived.append(result)

        def finish(self, run: RunResult) -> None: ...

    sinks: list[Any] = [Sink()] + ([store.recorder()] if store is not None else [])
    runner = Runner(_Reversed(48), sinks=sinks, secrets=())
    run = asyncio.run(runner.run(cases, RunResult(run_id="r", models=["m1", "m2"])))
    return _keys(run.results), _keys(arrived)


def test_results_are_in_plan_order_whatever_order_they_finish_in() -> None:
    first, arrived = _run_once()
    assert arrived != first  # they did finish out of order
    expected = [
        (f"{suite}/c{i}", v, m, n)
        for i in range(3)
        for suite in ("geo", "hist")
        for v in ("v1", "v2")
        for m in ("m1", "m2")
        for n in (1, 2)
    ]
    assert first == expected
    second, _ = _run_once()
    assert second == first


def test_a_stored_run_loads_in_plan_order(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    planned, arrived = _run_once(store)
    assert arrived != planned
    assert _keys(store.load("r").results) == planned


def test_resume_keys_results_by_suite_and_case(
    server: FaultServer, options: ClientOptions, tmp_path: Path
) -> None:
    message = (Message(role="user", content="q"),)
    cases = [
        TestCase(id="capital", messages=message, models=("fault/m",), suite=suite)
        for suite in ("geo", "hist")
    ]
    journal = Journal(tmp_path, plan_fingerprint(cases))
    earlier = RunResult(run_id="earlier", models=["fault/m"])
    journal.start(earlier)
    done = CaseResult(
        case_id="capital", suite="geo", model="fault/m", status="pass",
        completion=Completion(text="from before", model="fault/m"),
    )  # fmt: skip
    journal.add(done)
    journal.finish(earlier.model_copy(update={"complete": False}))

    session = Session(client_options=options)
    for case in cases:
        session.add_test(case)
    run = session.run(journal_dir=tmp_path, resume=True)
    assert run.run_id == "earlier"
    assert [(r.key, r.completion.text) for r in run.results] == [
        ("geo/capital", "from before"),
        ("hist/capital", "Hello from the fault server."),
    ]
    assert len(server.requests) == 1  # only hist/capital, though geo/capital shares its id


def _result(
    case_id: str, status: str, suite: str | None = None, variant: str | None = None
) -> CaseResult:
    return CaseResult(
        case_id=case_id, suite=suite, variant=variant, model="m", status=status,  # type: ignore[arg-type]
        completion=Completion(text=status, model="m"),
    )  # fmt: skip


def test_a_run_stored_before_namespacing_compares_with_one_after() -> None:
    before = RunResult(run_id="old", models=["m"], results=[_result("capital", "pass")])
    after = RunResult(run_id="new", models=["m"], results=[_result("capital", "fail", "geo")])
    (pair,) = compare_runs(before, after).models
    assert pair.shared == 1
    assert [c.case_id for c in pair.of_kind("regressed")] == ["capital"]


def test_the_best_variant_and_whether_its_lead_is_significant() -> None:
    results = [
        _result(f"c{i}", status, "geo", variant)
        for i in range(8)
        for variant, status in (("old", "fail"), ("new", "pass"))
    ]
    (lead,) = variant_leads(RunResult(run_id="r", models=["m"], results=results))
    assert (lead.best, lead.runner_up, lead.significant) == ("new", "old", True)
    assert lead.line.startswith(
        "Best prompt on m: new (100%, against 0% for old); the lead is significant"
    )
    few = results[:4]
    (lead,) = variant_leads(RunResult(run_id="r", models=["m"], results=few))
    assert not lead.significant
    assert "not significant" in lead.line


def test_the_variants_of_two_suites_are_ranked_each_within_its_suite() -> None:
    # Two suites' variants share no case: ranked together, their comparison had nothing to
    # pair and the whole run's summary failed ("share no cases").
    results = [
        _result(f"c{i}", status, suite, variant)
        for i in range(8)
        for suite, variants in (("geo", ("old", "new")), ("attacks", ("baseline", "hardened")))
        for variant, status in zip(variants, ("fail", "pass"), strict=True)
    ]
    leads = variant_leads(RunResult(run_id="r", models=["m"], results=results))
    assert [(lead.suite, lead.best, lead.runner_up) for lead in leads] == [
        ("geo", "new", "old"),
        ("attacks", "hardened", "baseline"),
    ]
    assert leads[1].line.startswith("Best prompt on m in suite attacks: hardened (100%")
