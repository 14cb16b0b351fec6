"""`promptum run --batch`: a run's calls answered by the providers' batch APIs, at half price.

Against `batch_server`, a fake OpenAI Batch API and Anthropic Message Batches on 127.0.0.1
that counts what it was asked (batches submitted, live calls); the built-in `openai` and
`anthropic` endpoints are pointed at it through their SDKs' own URL variables.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from promptum.providers import ClientOptions, ModelClient, price_for
from promptum.runner import Runner
from promptum.suites import load_suite
from promptum.values.run_result import RunResult
from tests.support.batch_server import BatchServer, batch_server, sdk_environment
from tests.support.cli import invoke, usage_error, write

MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-3-5-haiku-latest"}
JUDGED = f"judge: {{model: {MODELS['anthropic']}}}\n"
"""A suite's judge on the other provider: its calls go in a batch of their own."""


def _suite(path: Path, model: str, count: int, endpoints: str = "", judged: bool = False) -> Path:
    """`count` cases of `model` (a target: its `target:`), every other one expecting 43.

    `judged`: each case has an `expected_behavior` too, for the suite's judge (`endpoints`).
    """
    behaviour = ", expected_behavior: 'Says the answer'" if judged else ""
    cases = "".join(
        f"  - {{id: c{i}, query: 'Question {i}?'{behaviour}, "
        f"checks: [{{type: contains, value: '{42 if i % 2 else 43}'}}]}}\n"
        for i in range(count)
    )
    head = endpoints if model.startswith("target:") else f"models: [{model}]\n{endpoints}"
    return write(path, f"{head}test_cases:\n{cases}")


def _report(path: Path) -> tuple[dict[str, str], float, dict[str, object]]:
    """A JSON report's verdict per case, its total cost and its config."""
    report = json.loads(path.read_text(encoding="utf-8"))
    verdicts = {r["case_id"]: r["status"] for r in report["results"]}
    cost = sum(r["completion"]["cost_usd"] for r in report["results"])
    return verdicts, cost, report["config"]


def _judged(path: Path) -> dict[str, list[tuple[object, object]]]:
    """A JSON report's judge grades per case: (score, reason) of each."""
    report = json.loads(path.read_text(encoding="utf-8"))
    return {
        r["case_id"]: [(g["score"], g["reason"]) for g in r["grades"] if g["kind"] == "judge"]
        for r in report["results"]
    }


def _stopped_when(
    tmp_path: Path, suite: Path, stop: signal.Signals, ready: Callable[[], bool]
) -> None:
    """Run `suite` with --batch in a process of its own; send it `stop` once `ready()`."""
    command = [sys.executable, "-m", "promptum", "run", str(suite), "--batch", "--no-store"]
    process = subprocess.Popen(
        command, cwd=tmp_path, env={**os.environ}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while not ready():
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the run never got where it was to be stopped"
            time.sleep(0.05)
        process.send_signal(stop)  # Ctrl-C stops the polling at once: exit 130, batch kept
        assert process.wait(30) == (-signal.SIGKILL if stop == signal.SIGKILL else 130)
    finally:
        if process.poll() is None:
            process.kill()


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.chdir(tmp_path)
    with batch_server() as served:
        for name, value in sdk_environment(served).items():
            monkeypatch.setenv(name, value)
        yield served


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_200_cases_go_in_one_batch_with_the_ordinary_verdicts_at_half_the_cost(
    server: BatchServer, kind: str
) -> None:
    suite = _suite(Path("suite.yaml"), MODELS[kind], 200)
    ordinary = invoke("run", suite, "--no-cache", "--no-store", "-o", "live.json")
    assert server.live.counts.answered == 200
    batched = invoke("run", suite, "--no-cache", "--no-store", "--batch", "-o", "batch.json")
    assert server.counts["submissions"] == 1
    assert server.counts["requests"] == 200
    assert server.live.counts.answered == 200  # no call of the batched run was made live
    live_verdicts, live_cost, _ = _report(Path("live.json"))
    batch_verdicts, batch_cost, config = _report(Path("batch.json"))
    assert batch_verdicts == live_verdicts
    assert sorted(set(batch_verdicts.values())) == ["fail", "pass"]
    assert live_cost > 0
    assert batch_cost == pytest.approx(live_cost * 0.5)
    assert config["batch"] == [MODELS[kind]]
    assert (ordinary.exit_code, batched.exit_code) == (1, 1)  # half the cases fail, alike
    assert "batch price" in batched.output
    assert "batch price" not in ordinary.output


def test_requests_a_batch_did_not_answer_run_live_at_the_ordinary_price(
    server: BatchServer,
) -> None:
    server.fail_every = 4
    suite = _suite(Path("suite.yaml"), MODELS["openai"], 40)
    invoke("run", suite, "--no-cache", "--no-store", "--batch", "-o", "r.json")
    verdicts, _, _ = _report(Path("r.json"))
    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    costs = sorted({round(r["completion"]["cost_usd"], 12) for r in report["results"]})
    assert server.counts["submissions"] == 1
    assert server.live.counts.answered == 10  # every fourth of 40, asked again live
    assert len(verdicts) == 40
    assert len(costs) == 2
    assert costs[0] == pytest.approx(costs[1] * 0.5)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_refused_batch_is_a_warning_and_its_calls_run_live(
    server: BatchServer, kind: str
) -> None:
    server.refuse = True
    suite = _suite(Path("suite.yaml"), MODELS[kind], 10)
    result = invoke("run", suite, "--no-cache", "--no-store", "--batch", "-o", "r.json")
    verdicts, _, _ = _report(Path("r.json"))
    assert server.counts["submissions"] == 0
    assert server.live.counts.answered == 10
    assert len(verdicts) == 10
    warning = f"warning: a batch of 10 calls of {MODELS[kind]} could not be submitted"
    assert warning in result.output
    assert "the batch queue limit is reached); they ran live, at the ordinary" in result.output


def test_cached_answers_are_not_sent_in_a_batch(server: BatchServer) -> None:
    suite = _suite(Path("suite.yaml"), MODELS["openai"], 10)
    invoke("run", _suite(Path("first.yaml"), MODELS["openai"], 4), "--no-store")
    invoke("run", suite, "--no-store", "--batch")
    assert server.counts["requests"] == 6  # c0..c3 were answered, and cached, by the first run
    invoke("run", suite, "--no-store", "--batch")
    assert server.counts["submissions"] == 1  # everything cached: nothing to submit


def test_an_endpoint_saying_batch_sends_its_calls_in_batches_without_the_option(
    server: BatchServer,
) -> None:
    endpoints = f'endpoints:\n  mine: {{base_url: "{server.base_url}", batch: true}}\n'
    suite = _suite(Path("suite.yaml"), "mine/m", 12, endpoints)
    invoke("run", suite, "--no-cache", "--no-store")
    assert (server.counts["submissions"], server.counts["requests"]) == (1, 12)
    assert server.live.counts.answered == 0


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT])
def test_a_run_stopped_while_polling_resumes_the_same_batch(
    server: BatchServer, tmp_path: Path, stop: signal.Signals
) -> None:
    server.delay_s = 3600.0  # never ends while the first process waits
    suite = _suite(Path("suite.yaml"), MODELS["anthropic"], 30)
    # Submitted, journalled, and polled at least once.
    _stopped_when(tmp_path, suite, stop, lambda: server.counts["polls"] >= 1)
    server.delay_s = 0.0
    resumed = invoke("run", suite, "--batch", "--no-store", "--resume", "-o", "r.json")
    verdicts, _, _ = _report(Path("r.json"))
    assert server.counts["submissions"] == 1
    assert server.live.counts.answered == 0
    assert len(verdicts) == 30
    assert resumed.exit_code == 1  # complete: half the cases fail, as they would live


@pytest.mark.parametrize(
    ("model", "endpoints", "said"),
    [
        ("local/smollm2", "", "'local/smollm2' is the embedded model, which has no batch API"),
        ("ollama/llama3.2", "", "endpoint 'ollama' of 'ollama/llama3.2' has no batch API"),
        ("mine/m", 'endpoints:\n  mine: {base_url: "http://127.0.0.1:9"}\n', "set `batch: true`"),
        ("target:app", "target: {name: app, url: 'http://127.0.0.1:9'}\n", "is a target"),
    ],
)
def test_batch_on_what_has_no_batch_api_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, endpoints: str, said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = _suite(Path("suite.yaml"), model, 2, endpoints)
    output = usage_error("run", str(suite), "--batch", "--no-store")
    assert output.startswith("error: --batch: ")
    assert said in output
    assert not Path(".promptum/runs").exists() or not any(Path(".promptum/runs").iterdir())


def test_batch_with_units_on_ray_is_a_usage_error(server: BatchServer) -> None:
    suite = _suite(Path("suite.yaml"), MODELS["openai"], 2)
    output = usage_error("run", str(suite), "--batch", "--executor", "ray", "--no-store")
    assert "error: --batch: a batch is submitted and read back in this process" in output
    assert server.counts["submissions"] == 0


def test_the_judges_calls_go_in_a_second_batch_with_the_ordinary_verdicts(
    server: BatchServer,
) -> None:
    suite = _suite(Path("suite.yaml"), MODELS["openai"], 200, JUDGED, judged=True)
    invoke("run", suite, "--no-cache", "--no-store", "-o", "live.json")
    assert server.live.counts.answered == 400  # 200 answers, 200 verdicts
    result = invoke("run", suite, "--no-cache", "--no-store", "--batch", "-o", "batch.json")
    assert server.counts["submissions"] == 2  # the answers, then the judge's calls on them
    assert [len(b.entries) for b in server.batches.values()] == [200, 200]
    assert server.live.counts.answered == 400  # no call of the batched run was made live
    assert _report(Path("batch.json"))[0] == _report(Path("live.json"))[0]
    judged = _judged(Path("batch.json"))
    assert judged == _judged(Path("live.json"))
    assert all(grades == [(1.0, "It does what was asked.")] for grades in judged.values())
    assert result.exit_code == 1  # half the cases fail their check, as live


def test_the_judges_batch_answers_are_priced_at_the_batch_discount(server: BatchServer) -> None:
    cases = load_suite(_suite(Path("s.yaml"), MODELS["openai"], 10, JUDGED, judged=True)).cases

    async def run() -> ModelClient:
        client = ModelClient(ClientOptions(batch=True, cache=False))
        try:
            await Runner(client, secrets=()).run(cases, RunResult(run_id="t"))
        finally:
            await client.aclose()
        return client

    answers = asyncio.run(run()).batched.values()
    verdicts = [c for c in answers if c.text.startswith('{"score"')]
    price = price_for(MODELS["anthropic"], {})
    assert price is not None
    assert len(verdicts) == 10
    for verdict in verdicts:
        full = price.cost_of(verdict)
        assert full is not None
        assert full > 0
        assert verdict.cost_usd == pytest.approx(full * 0.5)


def test_a_run_killed_while_its_judge_batch_is_polled_resumes_without_submitting_again(
    server: BatchServer, tmp_path: Path
) -> None:
    server.delays[2] = 3600.0  # the answers come back at once; the judge's calls never do
    suite = _suite(Path("suite.yaml"), MODELS["openai"], 30, JUDGED, judged=True)

    def judge_batch_polled() -> bool:
        return len(server.batches) == 2 and list(server.batches.values())[1].polls >= 1

    _stopped_when(tmp_path, suite, signal.SIGKILL, judge_batch_polled)
    server.delays.clear()
    invoke("run", suite, "--batch", "--no-store", "--resume", "-o", "r.json")
    assert server.counts["submissions"] == 2
    assert server.live.counts.answered == 0
    judged = _judged(Path("r.json"))
    assert len(judged) == 30
    assert all(grades == [(1.0, "It does what was asked.")] for grades in judged.values())


def test_plain_output_shows_each_batch_while_it_is_polled(server: BatchServer) -> None:
    server.delay_s = 2.0  # looked at several times before it ends
    suite = _suite(Path("suite.yaml"), MODELS["openai"], 20)
    output = invoke("run", suite, "--no-cache", "--no-store", "--batch").output
    line = "batch batch_0001: 0 of 20 done (openai/gpt-4o-mini)\n"
    assert output.count(line) == 1  # the same line is not repeated at each look
    assert server.counts["polls"] > 1


def _conversations(path: Path, count: int) -> Path:
    """`count` conversations of three turns on OpenAI, judged on Anthropic over the transcript."""
    cases = "".join(
        f"  - {{id: t{i}, expected_behavior: 'Answers', turns: [{{query: 'Hello {i}'}}, "
        "{query: 'You said: {{ turns[0].reply }}', checks: [{type: contains, value: '42'}]}, "
        f"{{query: 'Bye {i}'}}]}}\n"
        for i in range(count)
    )
    return write(path, f"models: [{MODELS['openai']}]\n{JUDGED}test_cases:\n{cases}")


def test_conversation_turns_go_in_successive_batches_with_the_ordinary_results(
    server: BatchServer,
) -> None:
    suite = _conversations(Path("chat.yaml"), 10)
    invoke("run", suite, "--no-cache", "--no-store", "-o", "live.json")
    assert server.live.counts.answered == 40  # 3 turns and a verdict each
    invoke("run", suite, "--no-cache", "--no-store", "--batch", "-o", "batch.json")
    # Turn 1, turn 2 (quoting turn 1's reply), turn 3, then the judge on each transcript.
    assert [len(b.entries) for b in server.batches.values()] == [10, 10, 10, 10]
    assert server.live.counts.answered == 40  # no call of the batched run was made live
    live, batch = (json.loads(Path(name).read_text()) for name in ("live.json", "batch.json"))
    for ran in (live, batch):
        for result in ran["results"]:
            del result["completion"]["latency_ms"], result["completion"]["cost_usd"]
            for turn in result["turns"]:
                del turn["completion"]["latency_ms"], turn["completion"]["cost_usd"]
    assert batch["results"] == live["results"]
    assert _judged(Path("batch.json"))["t3"] == [(1.0, "It does what was asked.")]


def test_a_run_killed_at_a_conversations_third_turn_resumes_without_submitting_again(
    server: BatchServer, tmp_path: Path
) -> None:
    server.delays[3] = 3600.0  # turns 1 and 2 come back at once; turn 3 never does
    suite = _conversations(Path("chat.yaml"), 6)

    def third_turn_polled() -> bool:
        return len(server.batches) == 3 and list(server.batches.values())[2].polls >= 1

    _stopped_when(tmp_path, suite, signal.SIGKILL, third_turn_polled)
    server.delays.clear()
    invoke("run", suite, "--batch", "--no-store", "--resume", "-o", "r.json")
    assert [len(b.entries) for b in server.batches.values()] == [6, 6, 6, 6]
    assert server.live.counts.answered == 0
    report = json.loads(Path("r.json").read_text(encoding="utf-8"))
    assert [len(r["turns"]) for r in report["results"]] == [3] * 6
