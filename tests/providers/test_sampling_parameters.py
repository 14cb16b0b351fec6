"""A sampling parameter is said in three places (the suite format, the case, the request) and
every call, cache key, resume fingerprint and run config follows: `top_p` as the example."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cases import GenerationParams, TestCase
from promptum.cli import main
from promptum.providers import SAMPLING_PARAMETERS, ModelRequest
from promptum.providers._anthropic import _body as anthropic_body
from promptum.providers._cache import cache_key
from promptum.runner import plan_fingerprint, request_for
from promptum.store import RunStore
from promptum.suites._format import ParamsSpec
from promptum.values.case_result import Message
from tests.support.fault_server import FaultServer, project_fault_server

SUITE = """\
models: [fault/m]
test_cases:
  - id: nucleus
    query: hi
    params: {top_p: 0.3, temperature: 0.5}
    checks: [{type: contains, value: fault}]
  - id: plain
    query: hi
    checks: [{type: contains, value: fault}]
"""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FaultServer]:
    with project_fault_server(tmp_path, monkeypatch) as running:
        yield running


def _case(**params: float) -> TestCase:
    return TestCase(
        id="c", messages=(Message(role="user", content="hi"),), models=("m",),
        params=GenerationParams(**params),
    )  # fmt: skip


def test_the_case_the_request_and_the_suite_format_name_the_same_sampling_parameters() -> None:
    case_fields = {field.name for field in fields(GenerationParams)} - {"extra"}
    assert set(SAMPLING_PARAMETERS) == case_fields
    assert set(ParamsSpec.model_fields) - {"extra"} == case_fields


def test_a_suites_top_p_is_sent_with_its_calls_and_kept_in_the_run_config(
    server: FaultServer,
) -> None:
    Path("suite.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", "suite.yaml", "-c", "1", "--no-cache"])
    assert result.exit_code == 0, result.output

    sent = [r.body for r in server.requests]
    assert len(sent) == 2, sent
    nucleus = next(body for body in sent if "top_p" in body)
    assert (nucleus["top_p"], nucleus["temperature"]) == (0.3, 0.5)
    assert sum("top_p" in body for body in sent) == 1  # the plain case sends none

    store = RunStore(Path("runs.db"))
    [run] = store.list_runs()
    config = store.load(run.run_id).config
    assert {"temperature": 0.5, "max_tokens": None, "seed": None, "top_p": 0.3} in config["params"]
    assert {"temperature": None, "max_tokens": None, "seed": None} in config["params"]


def test_top_p_keys_the_cache_and_the_fingerprint_only_when_set() -> None:
    plain, nucleus = _case(), _case(top_p=0.3)
    assert request_for(nucleus, "m").top_p == 0.3
    assert cache_key(request_for(plain, "m"), "e") != cache_key(request_for(nucleus, "m"), "e")
    assert plan_fingerprint([plain]) != plan_fingerprint([nucleus])
    assert plan_fingerprint([nucleus]) != plan_fingerprint([_case(top_p=0.4)])
    # Unset, the request's key is the one written directly for the usual request, as before.
    direct = ModelRequest(model="m", messages=plain.messages)
    assert cache_key(request_for(plain, "m"), "e") == cache_key(direct, "e")


def test_the_anthropic_body_takes_top_p_and_no_seed() -> None:
    request = ModelRequest(
        model="anthropic/x", messages=(Message(role="user", content="hi"),), top_p=0.2, seed=3
    )
    body = anthropic_body(request, "x")
    assert body["top_p"] == 0.2
    assert "seed" not in body
    assert json.dumps(body)  # all of it goes over the wire as JSON
