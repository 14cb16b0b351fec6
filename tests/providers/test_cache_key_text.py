"""The cache key written directly is the canonical dump's text: caches from before still hit."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from promptum.providers import ModelRequest
from promptum.providers._cache import _KEY_VERSION, cache_key
from promptum.providers._key_text import _KNOWN, plain_key_text
from promptum.providers._keyed import not_keyed
from promptum.values.run_result import Message


def _dumped(request: ModelRequest, endpoint: str) -> str:
    """The key's text as the general path writes it (and every version before the direct one)."""
    payload = {
        "v": _KEY_VERSION,
        "endpoint": endpoint,
        "request": request.model_dump(mode="json", exclude=not_keyed(request)),
    }
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _general_key(request: ModelRequest, endpoint: str) -> str:
    return hashlib.sha256(_dumped(request, endpoint).encode()).hexdigest()


# Text with what JSON escapes: quotes, backslashes, control characters, non-ASCII, U+2028.
_texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from('"\\\n\t\x00\u2028é')
)
_numbers = st.none() | st.integers(min_value=-(2**40), max_value=2**40)
_floats = st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.integers(-3, 3)
_messages = st.lists(
    st.builds(
        Message,
        role=st.sampled_from(["system", "user", "assistant"]),
        content=_texts,
    ),
    min_size=1,
    max_size=4,
)
_extras: st.SearchStrategy[dict[str, Any]] = st.just({}) | st.just({"top_p": 0.5})
_tools = st.none() | st.just(({"type": "function", "function": {"name": "f"}},))


# Every field of a request; the conversation's id is not keyed at all.
_requests = st.builds(
    ModelRequest,
    model=_texts,
    messages=_messages.map(tuple),
    temperature=_floats,
    max_tokens=_numbers,
    seed=_numbers,
    sample=st.integers(min_value=0, max_value=10_000),
    extra=_extras,
    tools=_tools,
    response_schema=st.none() | st.just({"type": "object"}),
    vars=st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    conversation_id=st.just("not keyed"),
)


@settings(max_examples=300, deadline=None)
@given(request=_requests, endpoint=_texts)
def test_the_written_key_is_the_dumped_one(request: ModelRequest, endpoint: str) -> None:
    written = plain_key_text(request, endpoint, _KEY_VERSION)
    if written is not None:
        assert written == _dumped(request, endpoint)
    assert cache_key(request, endpoint) == _general_key(request, endpoint)


def test_every_field_of_a_request_is_accounted_for() -> None:
    # A field added to ModelRequest turns the direct text off (every key then takes the
    # general path, slower but right) until plain_key_text writes it too.
    assert _KNOWN


def test_the_usual_request_is_written_directly() -> None:
    usual = ModelRequest(
        model="bench/m", messages=(Message(role="user", content="question 1"),), temperature=0.2
    )
    assert plain_key_text(usual, "bench", _KEY_VERSION) == _dumped(usual, "bench")
    others = [
        usual.model_copy(update={"extra": {"top_p": 0.1}}),
        usual.model_copy(update={"response_schema": {"type": "object"}}),
        usual.model_copy(update={"tools": ({"type": "function"},)}),
        usual.model_copy(update={"tool_choice": "auto"}),
        usual.model_copy(update={"temperature": float("nan")}),
        usual.model_copy(
            update={"messages": (Message(role="tool", content="4", tool_call_id="c1"),)}
        ),
    ]
    for other in others:  # each takes the general path
        assert plain_key_text(other, "bench", _KEY_VERSION) is None


def test_keys_are_those_an_earlier_version_wrote() -> None:
    # Computed by 59a76aa's cache_key (before the direct text): its cache must still hit.
    tricky = ModelRequest(
        model="openai/gpt-4o-mini",
        messages=(
            Message(role="system", content="Be brief."),
            Message(role="user", content='Ünïcode "quoted" \\ tab\there\nnew line \u2028 \x01'),
        ),
        temperature=0.7,
        max_tokens=256,
        seed=42,
        sample=2,
        vars={"a": 1},
        context=("doc",),
        conversation_id="c1",
    )
    plain = ModelRequest(
        model="local/smollm2", messages=(Message(role="user", content="question 17"),)
    )
    assert plain_key_text(tricky, "openai", _KEY_VERSION) is not None  # the direct path
    assert cache_key(tricky, "openai") == (
        "6e8723e49891a91a78a5b357c47ce4befecb924610b2b0898a76062069c548f5"
    )
    assert cache_key(plain, "local") == (
        "8525e445424fe177a537aadc762db71f589aa5cc869e6088c2de518e4137b764"
    )
