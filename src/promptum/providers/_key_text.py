"""The cache key's text for the usual request, written directly instead of dumped and encoded.

A cache key hashes the request as canonical JSON (sorted keys, no spaces, UTF-8 as is).
Dumping the request and encoding the dump took ~15 µs of each cached answer, the largest
step of a warm re-run's answer after the read itself. For the usual request (plain text
messages; no tools, schema or provider extras) the same text is written from its fields,
each value encoded as `json` encodes it; any other request returns None and takes the
general path. Keys must not change (a cache from before must still hit): tests compare
both paths on generated requests, and on a key computed by an earlier version.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring

from promptum.case_result import Message
from promptum.providers._base import ModelRequest

_FIELDS = frozenset(
    {
        *("model", "messages", "temperature", "max_tokens", "seed", "response_schema"),
        *("tools", "tool_choice", "extra", "vars", "context", "sample", "conversation_id"),
    }
)
"""The fields the text below accounts for; should `ModelRequest` gain one, every request
takes the general path until this module writes it too."""
_KNOWN = frozenset(ModelRequest.model_fields) == _FIELDS


def _number(value: object) -> str | None:
    """`value` as json writes an int, a finite float or None; None for anything else."""
    if value is None:
        return "null"
    if type(value) is int:  # exactly: a bool or an int subclass is written otherwise
        return repr(value)
    if type(value) is float and math.isfinite(value):
        return repr(value)
    return None  # NaN and infinities are written otherwise by a JSON dump: not here


def plain_key_text(request: ModelRequest, endpoint: str, version: str) -> str | None:
    """The canonical JSON of the cache key of `request`, if it is a usual one; else None."""
    if not _KNOWN or request.tools is not None or request.tool_choice is not None:
        return None
    if request.response_schema is not None or request.extra:
        return None
    messages = []
    for message in request.messages:
        # A plain message dumps as {"role", "content"} (see `Message`'s serializer).
        if type(message) is not Message or message.tool_calls is not None:
            return None
        if message.tool_call_id is not None or type(message.content) is not str:
            return None
        content, role = encode_basestring(message.content), encode_basestring(message.role)
        messages.append(f'{{"content":{content},"role":{role}}}')
    max_tokens, sample = _number(request.max_tokens), _number(request.sample)
    seed, temperature = _number(request.seed), _number(request.temperature)
    if max_tokens is None or sample is None or seed is None or temperature is None:
        return None
    if type(request.model) is not str or type(endpoint) is not str:
        return None
    # Keys in sorted order, as the canonical encoder writes them; vars, context and the
    # conversation id are never keyed, tools and tool_choice not when unset.
    return (
        f'{{"endpoint":{encode_basestring(endpoint)},"request":{{"extra":{{}},'
        f'"max_tokens":{max_tokens},"messages":[{",".join(messages)}],'
        f'"model":{encode_basestring(request.model)},"response_schema":null,'
        f'"sample":{sample},"seed":{seed},"temperature":{temperature}}},'
        f'"v":{encode_basestring(version)}}}'
    )
