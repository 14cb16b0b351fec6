"""Structured output: find the JSON object in a response and check it against the schema."""

from __future__ import annotations

import json
import re
from typing import Any

from promptum.validation import compiled_schema

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)


class SchemaMismatch(Exception):  # noqa: N818 - a result, not an error condition of the caller
    """The response holds no JSON object that fits the schema; the message says why."""


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why a response schema is not a valid JSON Schema, or None when it is."""
    from jsonschema import SchemaError

    try:
        compiled_schema(schema)
    except SchemaError as exc:
        return f"the response schema is not a valid JSON Schema: {exc.message}"
    return None


def _candidates(text: str) -> list[str]:
    # Most exact first: the whole text, then fenced code blocks (small models wrap JSON in
    # them), then every balanced object found by the JSON decoder itself.
    found = [text.strip()]
    found += [block.strip() for block in _FENCE.findall(text)]
    return found


def _objects_in(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    objects: list[dict[str, Any]] = []
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            objects.append(value)
        start = text.find("{", end)
    return objects


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a response: the whole text, a fenced block, or embedded."""
    for candidate in _candidates(text):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    objects = _objects_in(text)
    return objects[0] if objects else None


def parse_structured(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON object in ``text`` that fits ``schema``; raises `SchemaMismatch` if none does."""
    try:
        return _parse_structured(text, schema)
    except RecursionError:
        # A model (or a hostile server) can nest objects deeper than Python recurses.
        raise SchemaMismatch("the response nests JSON too deeply to read") from None


def _parse_structured(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    from jsonschema.exceptions import best_match

    validator = compiled_schema(schema)
    value = extract_json_object(text)
    if value is None:
        preview = text.strip().replace("\n", " ")[:80]
        raise SchemaMismatch(f"the response is not a JSON object: {preview!r}")
    error = best_match(validator.iter_errors(value))
    if error is None:
        return value
    # Another embedded object may fit where the first did not (e.g. an example, then the answer).
    for other in _objects_in(text):
        if best_match(validator.iter_errors(other)) is None:
            return other
    where = error.json_path if error.path else "the top level"
    raise SchemaMismatch(f"the response does not fit the schema at {where}: {error.message}")
