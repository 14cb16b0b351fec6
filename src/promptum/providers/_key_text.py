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

from promptum.providers._base import ModelRequest
from promptum.providers._keyed import key_roles
from promptum.values.case_result import Message

_ALWAYS = frozenset(
    {"model", "messages", "temperature", "max_tokens", "seed", "response_schema", "extra", "sample"}
)
"""The fields always keyed that the text below writes."""
_UNSET = ("tools", "tool_choice")
"""The fields keyed when set that the text below takes only unset."""
_DIRECT: dict[type, tuple[str, ...] | None] = {}
"""By request class: None when the text below cannot write its keys (it keys another field
always), else its other fields keyed only when set, which a request must leave unset."""


def _others_unset(kind: type[ModelRequest]) -> tuple[str, ...] | None:
    if kind in _DIRECT:
        return _DIRECT[kind]
    roles = key_roles(kind)
    direct = roles.always == _ALWAYS and roles.when_set.issuperset(_UNSET)
    others = tuple(sorted(roles.when_set.difference(_UNSET))) if direct else None
    _DIRECT[kind] = others
    return others


_REQUEST_OTHERS = _others_unset(ModelRequest)
_KNOWN = _REQUEST_OTHERS is not None
"""Whether the usual request's key is written directly; should `ModelRequest` key another
field always (`Keyed`), every request takes the general path until this module writes it."""


def _number(value: object) -> str | None:
    """`value` as json writes an int, a finite float or None; None for anything else."""
    if value is None:
        return "null"
    if type(value) is int:  # exactly: a bool or an int subclass is written otherwise
        return repr(value)
    if type(value) is float and math.isfinite(value):
        return repr(value)
    return None  # NaN and infinities are written otherwise by a JSON dump: not here


def _usual(request: ModelRequest) -> bool:
    """Whether `request` keys only what the text below writes: no tools, schema or extras."""
    kind = type(request)
    others = _REQUEST_OTHERS if kind is ModelRequest else _others_unset(kind)
    if others is None or request.tools is not None or request.tool_choice is not None:
        return False
    if others and any(getattr(request, name) is not None for name in others):
        return False
    return request.response_schema is None and not request.extra


def plain_key_text(request: ModelRequest, endpoint: str, version: str) -> str | None:
    """The canonical JSON of the cache key of `request`, if it is a usual one; else None."""
    if not _usual(request):
        return None
    messages = []
    for message in request.messages:
        # A plain message dumps as {"role", "content"} (see `Message`'s serializer).
        if type(message) is not Message or message.tool_calls is not None:
            return None
        if message.tool_call_id is not None or type(message.content) is not str:
            return None
        if message.parts is not None:
            return None  # its parts' digests are keyed by the general path
        content, role = encode_basestring(message.content), encode_basestring(message.role)
        messages.append(f'{{"content":{content},"role":{role}}}')
    max_tokens, sample = _number(request.max_tokens), _number(request.sample)
    seed, temperature = _number(request.seed), _number(request.temperature)
    if max_tokens is None or sample is None or seed is None or temperature is None:
        return None
    if type(request.model) is not str or type(endpoint) is not str:
        return None
    # Keys in sorted order, as the canonical encoder writes them; fields never keyed are
    # not written, tools and tool_choice not when unset (`Keyed`).
    return (
        f'{{"endpoint":{encode_basestring(endpoint)},"request":{{"extra":{{}},'
        f'"max_tokens":{max_tokens},"messages":[{",".join(messages)}],'
        f'"model":{encode_basestring(request.model)},"response_schema":null,'
        f'"sample":{sample},"seed":{seed},"temperature":{temperature}}},'
        f'"v":{encode_basestring(version)}}}'
    )
