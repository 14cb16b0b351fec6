"""The SQLite response cache: keys, TTL, damage, several writers, and the client around it."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import time
from pathlib import Path

import pytest

from promptum.providers import (
    ClientOptions,
    EndpointConfig,
    ModelClient,
    ModelRequest,
    Price,
    ResponseCache,
    cache_key,
)
from promptum.values.completion import Completion
from promptum.values.run_result import Message
from tests.support.fault_server import Reply, fault_server


def _request(content: str = "hi", **fields: object) -> ModelRequest:
    return ModelRequest(
        model="openai/gpt-4o", messages=(Message(role="user", content=content),), **fields
    )


def test_the_key_depends_on_everything_that_decides_the_answer() -> None:
    base = cache_key(_request(), "openai:default")
    assert base == cache_key(_request(), "openai:default")
    variants = [
        cache_key(_request("hello"), "openai:default"),
        cache_key(_request(temperature=0.5), "openai:default"),
        cache_key(_request(max_tokens=9), "openai:default"),
        cache_key(_request(seed=1), "openai:default"),
        cache_key(_request(response_schema={"type": "object"}), "openai:default"),
        cache_key(_request(extra={"top_p": 0.1}), "openai:default"),
        cache_key(_request(), "openai:http://other/v1"),
        cache_key(
            ModelRequest(
                model="openai/gpt-4o-mini", messages=(Message(role="user", content="hi"),)
            ),
            "openai:default",
        ),
    ]
    assert base not in variants
    assert len(set(variants)) == len(variants)


def test_key_order_inside_a_schema_does_not_matter() -> None:
    one = _request(response_schema={"type": "object", "properties": {"a": {}, "b": {}}})
    two = _request(response_schema={"properties": {"b": {}, "a": {}}, "type": "object"})
    assert cache_key(one, "e") == cache_key(two, "e")


def test_round_trip_keeps_every_figure(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    original = Completion(
        text="Paris", model="openai/gpt-4o", latency_ms=812.5, input_tokens=12,
        output_tokens=3, cost_usd=0.00006, attempts=2,
    )  # fmt: skip
    cache.put("k", original)
    hit = cache.get("k")
    assert hit == original.model_copy(update={"cached": True})
    assert cache.get("other") is None
    assert cache.problem is None


def test_an_answer_utf8_cannot_hold_is_cached_as_every_report_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A JSON API's "\ud800" escape decodes to a lone surrogate: writing it crashed the flush.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-a-key-to-check-for")  # the secret scan too
    cache = ResponseCache(tmp_path / "c.sqlite")
    odd = Completion(text="Paris \ud800 ok", output={"city": "\udfff"}, model="openai/gpt-4o")
    cache.put("k", odd)
    cache.flush()
    hit = cache.get("k")
    assert hit is not None
    assert (hit.text, hit.output) == ("Paris \ufffd ok", {"city": "\ufffd"})
    assert cache.problem is None


def test_writes_are_committed_in_batches_and_on_close(tmp_path: Path) -> None:
    from promptum.providers._cache import FLUSH_EVERY

    path = tmp_path / "c.sqlite"
    writer = ResponseCache(path)
    for i in range(FLUSH_EVERY - 1):
        writer.put(f"k{i}", Completion(text=str(i)))
    reader = ResponseCache(path)
    assert reader.get("k0") is None  # not committed yet...
    hit = writer.get("k0")  # ...but already served by the writer
    assert hit is not None
    assert hit.cached
    writer.put("last", Completion(text="last"))  # the batch is full: committed
    assert reader.get("k0") is not None
    writer.put("after", Completion(text="after"))
    assert reader.get("after") is None
    writer.close()
    hit = reader.get("after")
    assert hit is not None
    assert hit.text == "after"


def test_errors_are_never_cached(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", Completion(error="rate limited"))
    assert cache.get("k") is None


def _stored_then_changed(path: Path, text: str, change: str, *values: object) -> ResponseCache:
    """Store `text` under key "k" in the cache at `path`, then run the SQL `change` on the file
    behind the cache's back; return the cache."""
    cache = ResponseCache(path)
    cache.put("k", Completion(text=text))
    cache.flush()
    with sqlite3.connect(path) as db:
        db.execute(change, values)
    return cache


def test_ttl_expires_old_entries(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    _stored_then_changed(
        path, "old", "UPDATE responses SET created_at = ?", time.time() - 3600
    ).close()
    assert ResponseCache(path, ttl_s=60).get("k") is None
    assert ResponseCache(path, ttl_s=7200).get("k") is not None
    assert ResponseCache(path).get("k") is not None


def test_a_damaged_entry_is_skipped_and_noted(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = _stored_then_changed(path, "fine", "UPDATE responses SET completion = '{not json'")
    assert cache.get("k") is None
    assert cache.problem is not None
    assert "damaged entry was skipped" in cache.problem
    cache.put("k", Completion(text="fresh"))  # and it heals on the next write
    hit = cache.get("k")
    assert hit is not None
    assert hit.text == "fresh"


def test_a_corrupt_file_turns_the_cache_off_without_failing(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not a database" * 200)
    cache = ResponseCache(path)
    assert cache.get("k") is None
    cache.put("k", Completion(text="x"))
    assert cache.get("k") is None
    assert cache.problem is not None
    assert "is unusable and was skipped" in cache.problem


def test_an_unwritable_location_turns_the_cache_off(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where a directory should be")
    cache = ResponseCache(blocker / "sub" / "c.sqlite")
    cache.put("k", Completion(text="x"))
    cache.flush()
    assert cache.get("k") is None
    assert cache.problem is not None


def _asked_twice(options: ClientOptions, request: ModelRequest) -> tuple[Completion, Completion]:
    """The answers to `request` asked twice by one new client."""

    async def twice() -> tuple[Completion, Completion]:
        client = ModelClient(options)
        try:
            return await client.complete(request), await client.complete(request)
        finally:
            await client.aclose()

    return asyncio.run(twice())


def _writer(path: str, worker: int, count: int) -> int:
    cache = ResponseCache(Path(path))
    for i in range(count):
        cache.put(f"{worker}-{i}", Completion(text=f"{worker}:{i}"))
        cache.get(f"{(worker + 1) % 4}-{i}")
    cache.close()
    return 0 if cache.problem is None else 1


def test_several_processes_write_at_once(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        problems = pool.starmap(_writer, [(path, w, 150) for w in range(4)])
    assert problems == [0, 0, 0, 0]
    cache = ResponseCache(Path(path))
    for worker in range(4):
        for i in (0, 75, 149):
            hit = cache.get(f"{worker}-{i}")
            assert hit is not None
            assert hit.text == f"{worker}:{i}"


def test_the_client_serves_repeats_from_the_cache_with_original_figures(tmp_path: Path) -> None:
    with fault_server() as server:
        server.default = Reply.ok("cached answer")
        options = ClientOptions(
            cache_path=tmp_path / "c.sqlite",
            endpoints={"f": EndpointConfig(base_url=server.base_url, api_key="sk-secret-123456")},
            pricing={"f/m": Price(input=1.0, output=1.0)},
        )
        request = ModelRequest(model="f/m", messages=(Message(role="user", content="q"),))

        fresh, again = _asked_twice(options, request)
        (third, _) = _asked_twice(options, request)  # a new client (a new run) hits it too
    assert len(server.requests) == 1
    assert (fresh.cached, again.cached, third.cached) == (False, True, True)
    assert again.text == third.text == "cached answer"
    assert again.latency_ms == fresh.latency_ms
    assert again.cost_usd == fresh.cost_usd
    assert fresh.cost_usd is not None
    assert b"sk-secret-123456" not in (tmp_path / "c.sqlite").read_bytes()


def test_no_cache_means_no_file_and_every_call_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with fault_server() as server:
        options = ClientOptions(
            cache=False, endpoints={"f": EndpointConfig(base_url=server.base_url)}
        )
        request = ModelRequest(model="f/m", messages=(Message(role="user", content="q"),))

        async def twice() -> None:
            client = ModelClient(options)
            await client.complete(request)
            await client.complete(request)
            await client.aclose()

        asyncio.run(twice())
    assert len(server.requests) == 2
    assert not (tmp_path / ".promptum").exists()


def test_the_default_cache_lives_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with fault_server() as server:
        options = ClientOptions(endpoints={"f": EndpointConfig(base_url=server.base_url)})
        request = ModelRequest(model="f/m", messages=(Message(role="user", content="q"),))

        async def once() -> None:
            client = ModelClient(options)
            await client.complete(request)
            await client.aclose()

        asyncio.run(once())
    assert (tmp_path / ".promptum" / "cache.sqlite").is_file()


def test_a_schema_misfit_is_cached_as_an_answer_and_rechecked(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    with fault_server() as server:
        server.default = Reply.ok('{"n": "x"}')
        options = ClientOptions(
            cache_path=tmp_path / "c.sqlite",
            endpoints={
                "f": EndpointConfig(base_url=server.base_url, structured_output="json_schema")
            },
        )
        request = ModelRequest(
            model="f/m", messages=(Message(role="user", content="q"),), response_schema=schema
        )

        fresh, again = _asked_twice(options, request)
    assert len(server.requests) == 1
    assert fresh.output_error == again.output_error
    assert again.output_error is not None
    assert again.error is None
    assert "does not fit the schema at $.n" in again.output_error
    assert again.cached


def test_a_response_echoing_an_api_key_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-live-ThisKeyMustNeverReachTheCache0042"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", Completion(text=f"Sure, your key is {secret}."))
    cache.put("other", Completion(text="no secret here"))
    cache.close()
    assert cache.skipped_secret == 1
    assert secret.encode() not in (tmp_path / "c.sqlite").read_bytes()
    # Replaying a masked answer would grade something the model never said.
    assert ResponseCache(tmp_path / "c.sqlite").get("k") is None
