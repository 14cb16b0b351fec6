"""A cached answer replays what the model said: answers holding a secret are not cached at all."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from promptum import Prompt, RunResult, Session
from promptum.providers import ClientOptions, EndpointConfig, ResponseCache
from promptum.values.completion import Completion
from tests.support.fault_server import Reply, fault_server
from tests.support.results import statuses

SECRET = "sk-live-EchoedBackByTheModel-0042"


def _on_disk(path: Path) -> bytes:
    """The cache file's raw bytes, with its write-ahead log if one is left."""
    return b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))


def test_a_response_echoing_a_secret_grades_the_same_from_a_second_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACME_API_KEY", SECRET)
    cache = tmp_path / "cache.sqlite"
    with fault_server() as server:
        options = ClientOptions(
            cache_path=cache, endpoints={"fault": EndpointConfig(base_url=server.base_url)}
        )

        def run() -> RunResult:
            session = Session(models=["fault/m"], client_options=options, concurrency=1)
            # The first check passes on the answer (graded with the key already replaced: no
            # reason may quote a piece of it), the second fails on any text: the statuses show
            # that checks were graded, and graded on the same answer both times.
            session.add_test(
                Prompt(
                    name="echo",
                    prompt="What is my key?",
                    checks=[{"type": "contains", "value": "key is [redacted]"}],
                )
            )
            session.add_test(
                Prompt(name="plain", prompt="Hi", checks=[{"type": "contains", "value": "Bye"}])
            )
            return session.run()

        server.queue(Reply.ok(f"Your key is {SECRET}."), Reply.ok("Hi there"))
        first = run()
        server.queue(Reply.ok(f"Your key is {SECRET}."))
        second = run()
        calls = len(server.requests)

    assert statuses(first) == {"echo": "pass", "plain": "fail"}
    assert statuses(second) == statuses(first)
    cached = {r.case_id: r.completion.cached for r in second.results}
    assert cached == {"echo": False, "plain": True}  # the echo was asked again, live
    assert calls == 3
    raw = _on_disk(cache)
    assert b"Hi there" in raw
    assert SECRET.encode() not in raw
    warning = "1 response was not cached because it contained a secret from the environment"
    assert warning in first.warnings
    assert warning in second.warnings


def test_text_output_and_escaped_forms_are_all_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    awkward = 'pa"ss\\word-9931'  # stored JSON escapes it: the escaped form must be caught too
    monkeypatch.setenv("DB_PASSWORD", awkward)
    monkeypatch.setenv("ACME_API_KEY", SECRET)
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path)
    cache.put("text", Completion(text=f"it is {SECRET}"))
    cache.put("output", Completion(text="{}", output={"key": SECRET}))
    cache.put("escaped", Completion(text=f"the password is {awkward}"))
    cache.put("clean", Completion(text="nothing to hide"))
    cache.close()
    assert cache.skipped_secret == 3
    reader = ResponseCache(path)
    assert [reader.get(k) is None for k in ("text", "output", "escaped", "clean")] == [
        True, True, True, False,
    ]  # fmt: skip
    raw = _on_disk(path)
    assert SECRET.encode() not in raw
    assert json.dumps(awkward)[1:-1].encode() not in raw
    assert awkward.encode() not in raw
    assert cache.problem is None


def test_without_secrets_in_the_environment_answers_are_stored_verbatim(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", Completion(text="[redacted] is what the model said"))
    cache.close()
    hit = ResponseCache(tmp_path / "c.sqlite").get("k")
    assert hit is not None
    assert hit.text == "[redacted] is what the model said"
    assert cache.skipped_secret == 0


def test_entries_masked_by_an_older_version_are_dropped_once(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as db:  # the file as an older promptum left it
        db.execute(
            "CREATE TABLE responses (key TEXT PRIMARY KEY, created_at REAL NOT NULL, "
            "completion TEXT NOT NULL)"
        )
        for key, text in (("masked", "your key is [redacted]"), ("fine", "Paris")):
            db.execute(
                "INSERT INTO responses VALUES (?, 0, ?)",
                (key, Completion(text=text).model_dump_json()),
            )
    db.close()
    cache = ResponseCache(path)
    assert cache.get("masked") is None  # it would replay an answer the model never gave
    hit = cache.get("fine")
    assert hit is not None
    assert hit.text == "Paris"
    cache.put("masked", Completion(text="[redacted] said the model"))
    cache.close()
    again = ResponseCache(path).get("masked")  # migrated once: new entries are kept as they are
    assert again is not None
    assert again.text == "[redacted] said the model"
    assert cache.problem is None
