"""Calls run at an endpoint's rate limit, not into it: stated, told by headers, or found.

Against `limited_server`, which answers 429 past its limits and counts what it was asked;
the tests count 429s and calls, never time. The server holds one second of its limit and
the client half a second, so a burst of the run's whole concurrency would meet 429s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from promptum.cases import TestCase
from promptum.providers import ClientOptions, EndpointConfig, ModelClient, ModelRequest
from promptum.runner import Runner
from promptum.values.case_result import CaseResult, Message
from promptum.values.completion import Completion
from promptum.values.run_result import RunResult
from tests.support.cli import invoke, write
from tests.support.limited_server import LimitedServer, limited_server

QUESTION = "Please answer this question about the limits of the endpoint, briefly. " * 3


def _url(server: LimitedServer, kind: str) -> str:
    return server.base_url if kind == "openai" else server.root_url


async def _calls(options: ClientOptions, count: int, concurrency: int) -> list[Completion]:
    """`count` calls to ``lim/m``, `concurrency` at once, as a run makes them."""
    client = ModelClient(options)
    limit = asyncio.Semaphore(concurrency)

    async def one(index: int) -> Completion:
        request = ModelRequest(
            model="lim/m",
            messages=(Message(role="user", content=f"{index}: {QUESTION}"),),
            max_tokens=16,
        )
        async with limit:
            return await client.complete(request)

    try:
        return await asyncio.gather(*(one(i) for i in range(count)))
    finally:
        await client.aclose()


def _options(url: str, kind: str = "openai", **limits: int) -> ClientOptions:
    endpoint = EndpointConfig(kind=kind, base_url=url, **limits)  # type: ignore[arg-type]
    return ClientOptions(cache=False, endpoints={"lim": endpoint})


def test_a_stated_request_limit_keeps_a_burst_under_it() -> None:
    with limited_server(rpm=1200, tpm=10_000_000, headers=False) as server:
        answers = asyncio.run(_calls(_options(server.base_url, rpm=1200), 60, 32))
    assert [a.error for a in answers if a.error] == []
    assert server.counts.limited == 0
    assert server.counts.requests == 60


def test_a_stated_token_limit_keeps_a_burst_under_it() -> None:
    # ~60 tokens a call: 32 at once are 1,900 tokens, past the server's 600 a second.
    with limited_server(rpm=100_000, tpm=36_000, headers=False) as server:
        answers = asyncio.run(_calls(_options(server.base_url, tpm=36_000), 40, 32))
    assert [a.error for a in answers if a.error] == []
    assert server.counts.limited == 0


def test_the_run_option_limits_an_endpoint_that_states_none() -> None:
    with limited_server(rpm=1200, tpm=10_000_000, headers=False) as server:
        options = _options(server.base_url).model_copy(update={"rpm": 1200})
        answers = asyncio.run(_calls(options, 60, 32))
    assert [a.error for a in answers if a.error] == []
    assert server.counts.limited == 0


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_the_headers_limit_an_endpoint_that_states_none(kind: str) -> None:
    # Nothing stated: the first call goes alone and its headers tell the limit.
    with limited_server(rpm=1200, tpm=10_000_000) as server:
        answers = asyncio.run(_calls(_options(_url(server, kind), kind), 60, 32))
    assert [a.error for a in answers if a.error] == []
    assert server.counts.limited == 0
    assert server.counts.requests == 60


def test_a_429_slows_the_whole_endpoint_when_nothing_tells_its_limit() -> None:
    # No limit stated or told: the first 429 pauses every queued call for its Retry-After
    # and cuts the endpoint's rate. Calls that each wait for their own 429 alone (the tree
    # before pacing) met 71 here, one for every other call answered.
    with limited_server(rpm=1200, tpm=10_000_000, headers=False) as server:
        answers = asyncio.run(_calls(_options(server.base_url), 120, 16))
    assert [a.error for a in answers if a.error] == []
    assert server.counts.answered == 120
    assert server.counts.limited <= 24


def test_a_judge_on_the_same_endpoint_shares_its_budget(tmp_path: Path) -> None:
    # 30 answers and 30 verdicts at 20 a second: each alone keeps under the server's limit
    # with a budget of its own, together they would not.
    with limited_server(rpm=1200, tpm=10_000_000, headers=False) as server:
        cases = "\n".join(
            f"  - {{id: c{i}, query: 'Question {i}?', expected_behavior: Answers it.}}"
            for i in range(30)
        )
        suite = write(
            tmp_path / "suite.yaml",
            f"""\
            models: [lim/answer]
            judge: {{model: lim/judge, threshold: 0.5}}
            endpoints:
              lim: {{base_url: "{server.base_url}", rpm: 1200}}
            test_cases:
            """,
        )
        suite.write_text(suite.read_text() + cases + "\n")
        result = invoke("run", suite, "-c", "32", "--no-cache", "--no-store")
    assert result.exit_code == 0, result.output
    assert dict(server.counts.by_model) == {"answer": 30, "judge": 30}
    assert server.counts.limited == 0


@pytest.mark.parametrize(
    ("line", "where"),
    [("rpm: 0", "endpoints.lim.rpm"), ("tpm: -5", "endpoints.lim.tpm")],
)
def test_a_limit_below_one_is_a_located_error(tmp_path: Path, line: str, where: str) -> None:
    suite = write(
        tmp_path / "suite.yaml",
        f"""\
        models: [lim/m]
        endpoints:
          lim:
            base_url: http://127.0.0.1:9/v1
            {line}
        test_cases: [{{id: a, query: Hi?, checks: [{{type: contains, value: hi}}]}}]
        """,
    )
    for command in (["validate"], ["run", "--no-store"]):
        result = invoke(*command, suite)
        assert result.exit_code == 2, result.output
        assert "suite.yaml" in result.output
        assert where in result.output
        assert "greater than or equal to 1" in result.output


@pytest.mark.parametrize("option", ["--rpm", "--tpm"])
def test_a_run_limit_below_one_is_a_usage_error(tmp_path: Path, option: str) -> None:
    suite = write(tmp_path / "suite.yaml", "test_cases: [{id: a, query: Hi?}]\n")
    result = invoke("run", suite, option, "0")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}'" in result.output


class _Watcher:
    """A sink that shows the pacing line, as the progress bar does: read after each result."""

    def __init__(self) -> None:
        self.line: Callable[[], str | None] | None = None
        self.seen: list[str | None] = []

    def follow_pacing(self, line: Callable[[], str | None]) -> None:
        self.line = line

    def start(self, run: RunResult) -> None:
        pass

    def add(self, result: CaseResult) -> None:
        assert self.line is not None
        self.seen.append(self.line())

    def finish(self, run: RunResult) -> None:
        pass


def test_the_progress_sink_is_shown_the_pace_the_headers_tell() -> None:
    watcher = _Watcher()
    cases = [
        TestCase(id=f"c{i}", messages=(Message(role="user", content=QUESTION),), models=("lim/m",))
        for i in range(20)
    ]

    async def run(url: str) -> None:
        client = ModelClient(_options(url))
        try:
            await Runner(client, concurrency=8, sinks=[watcher]).run(cases, RunResult(run_id="t"))
        finally:
            await client.aclose()

    with limited_server(rpm=1200, tpm=10_000_000) as server:
        asyncio.run(run(server.base_url))
    # The first answer's headers tell the limit before its result is shown.
    assert len(watcher.seen) == 20
    for line in watcher.seen:
        assert line is not None
        assert line.startswith("lim ")
        assert line.endswith(" calls/s of 1200 rpm")
