"""A project with a commented suite, a store holding a run of it, and a review-mode viewer."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from promptum.checks import CheckDefinition, evaluate_checks
from promptum.store import RunStore
from promptum.suites import load_suite
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, JudgeVerdict, Message, RunResult
from promptum.viewer import WriteAccess, create_app
from tests.reporting.report_samples import IMG, PWN, SCRIPT
from tests.store.samples import LOCAL, T0
from tests.store.test_store import record
from tests.viewer.serving import served_app

SUITE = """\
# Support bot regression suite: keep this comment.
name: support
models: [local/smollm2]   # the embedded model

defaults:
  checks:
    - {type: max_length, value: 500}

test_cases:
  # The capital question.
  - id: capital
    query: "What is the capital of France?"
    checks:
      - type: contains
        value: Paris   # must name it

  - id: greeting
    query: |
      Say hello
      politely.
    tags: [smoke]

# Settings after the cases stay after them.
judge:
  model: local/smollm2
"""
HOSTILE = f"It is Lyon. {PWN} {IMG} {SCRIPT}"
RUN = "run-review"


def answer(case_id: str, source: str | None, text: str, repeat: int = 1) -> CaseResult:
    """A result graded the way the runner grades it: a real check and a judge verdict."""
    completion = Completion(
        text=text, model=LOCAL, latency_ms=300.0 + repeat, input_tokens=10, output_tokens=7
    )
    checks = evaluate_checks([CheckDefinition(type="contains", value="Paris")], completion)
    score = 0.9 if "Paris" in text else 0.8  # the judge is wrong on the hostile answer
    verdict = JudgeVerdict(model=LOCAL, score=score, passed=True, reason=f"fine {IMG}")
    passed = all(check.passed for check in checks)
    return CaseResult(
        case_id=case_id, model=LOCAL, repeat=repeat, status="pass" if passed else "fail",
        suite="support", messages=[Message(role="user", content=f"Question {SCRIPT}")],
        completion=completion, check_results=checks, judge=verdict,
        expected_behavior="Names Paris.", source=source,
    )  # fmt: skip


def make_project(root: Path) -> tuple[Path, RunStore]:
    """The project folder's suite, and a store with one run of it (sources from loading it)."""
    suite = root / "suites" / "support.yaml"
    suite.parent.mkdir(parents=True)
    suite.write_text(SUITE, encoding="utf-8")
    sources = {case.id: case.source for case in load_suite(suite).cases}
    outside = root.parent / f"{root.name}-outside.yaml"
    results = [
        answer("capital", sources["capital"], HOSTILE),
        answer("capital", sources["capital"], "Paris.", repeat=2),
        answer("greeting", sources["greeting"], "Hello, Paris!"),
        answer("elsewhere", f"{outside}:3", "Paris"),
        answer("from-csv", f"{root / 'suites' / 'rows.csv'}:2", "Paris"),
        answer("from-toml", f"{root / 'suites' / 'cases' / 'one.toml'}:1", "Paris"),
    ]
    store = RunStore(root / "runs.sqlite")
    record(
        store,
        RunResult(
            run_id=RUN, suite="support", models=[LOCAL], started_at=T0,
            finished_at=T0 + timedelta(seconds=3), config={}, results=results,
        ),
    )  # fmt: skip
    return suite, store


@dataclass(frozen=True)
class Served:
    url: str
    port: int
    store: RunStore
    token: str


@contextmanager
def serving(store: RunStore, root: Path, access: WriteAccess | None = None) -> Iterator[Served]:
    """The viewer on a free loopback port in a thread, until the block ends."""
    with served_app(create_app(store, access=access, root=root)) as port:
        yield Served(f"http://127.0.0.1:{port}", port, store, access.token if access else "")


@contextmanager
def serving_project(root: Path, reviewer: str = "ada") -> Iterator[Served]:
    """A new project at `root` (see `make_project`) in a review-mode viewer as `reviewer`."""
    root.mkdir()
    _, store = make_project(root)
    with serving(store, root, WriteAccess(reviewer)) as served:
        yield served


def post(
    served: Served,
    path: str,
    body: Mapping[str, Any] | bytes,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    method: str = "POST",
) -> tuple[int, dict[str, Any]]:
    """A write sent as a script would send it: JSON, the token header unless told otherwise."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", "Host": f"127.0.0.1:{served.port}"}
    if token is None:
        token = served.token
    if token:
        sent["X-Promptum-Token"] = token
    sent.update(headers or {})
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    connection.request(method, path, body=data, headers=sent)
    response = connection.getresponse()
    raw = response.read().decode("utf-8", "replace")
    connection.close()
    try:
        return response.status, json.loads(raw)
    except json.JSONDecodeError:
        return response.status, {"raw": raw}


def target(case: str = "support/capital", repeat: int = 1) -> dict[str, Any]:
    """The result a write names."""
    return {"run_id": RUN, "case": case, "variant": "", "model": LOCAL, "repeat": repeat}
