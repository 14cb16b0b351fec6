"""`promptum run`'s fast paths give what the slow ones gave: reports from the stored JSON
after a streamed run, and a re-run the response cache answers without building a provider."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.foundations.redaction import environment_secrets
from promptum.reporting import _json, write_report
from promptum.store import RunStore
from tests.support.fault_server import FaultServer, Reply
from tests.support.provider_builds import recorded_builds

SUITE = """\
name: speed
models: [fault/m]
test_cases:
"""
CASE = """\
  - id: case-{n}
    query: "Say hello {n}"
    checks:
      - {{type: contains, value: hello, case_insensitive: true}}
      - {{type: contains, value: "{n}"}}
"""
FORMATS = ("json", "xml", "html", "csv", "md")
"""The whole-run formats (JSONL is written as results arrive, in their order)."""


def _suite(cases: int, judged: bool = False) -> None:
    text = SUITE + "".join(CASE.format(n=n) for n in range(cases))
    if judged:  # a judge's grades: that result takes the models' path in the JSON report
        text = text.replace(
            "test_cases:", "judge: {model: fault/judge, threshold: 0.5}\ntest_cases:"
        )
        text += "    expected_behavior: Says hello\n"
    Path("suite.yaml").write_text(textwrap.dedent(text), encoding="utf-8")


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["run", "suite.yaml", "-c", "2", *args], catch_exceptions=False)


@pytest.fixture(autouse=True)
def _no_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if environment_secrets({name: os.environ[name]}):
            monkeypatch.delenv(name)
    monkeypatch.delenv("PROMPTUM_DB", raising=False)


@pytest.mark.parametrize("judged", [False, True], ids=["checks", "a judge"])
def test_reports_after_a_streamed_run_are_those_of_the_recorded_run(
    server: FaultServer, judged: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.default = Reply.ok("Hello 0 1 2 3 4 5 6 7 8 9 10 11")
    _suite(12, judged)
    used: list[int] = []
    real = _json.stored_items

    def counting(texts: Any, item: Any) -> Any:
        used.append(1)
        return real(texts, item)

    monkeypatch.setattr(_json, "stored_items", counting)
    outputs = [arg for fmt in FORMATS for arg in ("-o", f"r.{fmt}")]
    result = _invoke("--no-judge" if not judged else "--repeat=1", *outputs)
    assert result.exit_code in (0, 1), result.output
    assert used == [1]  # the JSON report was written from the stored JSON
    run = RunStore().load("latest")
    assert len(run.results) == 12
    for fmt in FORMATS:
        write_report(run, f"kept.{fmt}")
        assert Path(f"r.{fmt}").read_bytes() == Path(f"kept.{fmt}").read_bytes(), fmt


def test_a_rerun_the_cache_answers_builds_no_provider(
    server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.default = Reply.ok("Hello 0 1 2 3")
    built = recorded_builds(monkeypatch)
    _suite(3)
    first = _invoke("--no-judge")
    assert first.exit_code == 0, first.output
    assert built == ["fault/m"]
    calls = len(server.requests)

    again = _invoke("--no-judge")
    assert again.exit_code == 0, again.output
    assert "3 of 3 answers from the cache" in again.output
    assert built == ["fault/m"]  # nothing built: the model's SDK was not even imported
    assert len(server.requests) == calls

    _suite(4)  # one new case: its miss builds the provider, then calls the model
    more = _invoke("--no-judge")
    assert more.exit_code == 0, more.output
    assert "3 of 4 answers from the cache" in more.output
    assert built == ["fault/m", "fault/m"]
    assert len(server.requests) == calls + 1
