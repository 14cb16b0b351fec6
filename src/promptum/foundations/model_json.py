"""JSON of a pydantic model even when it holds text UTF-8 cannot (lone surrogates): one way."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # as in `redaction`: the foundations import no more than the standard library
    from pydantic import BaseModel

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _repaired(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_repaired(key): _repaired(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_repaired(item) for item in value]
    return value


def model_json(model: BaseModel, indent: int | None = None) -> str:
    """`model` as JSON; lone surrogates (which UTF-8 cannot encode) become U+FFFD."""
    try:
        return model.model_dump_json(indent=indent)
    except ValueError:  # pydantic-core's PydanticSerializationError is one
        # A JSON API may send a `\ud800` escape, which decodes to a lone surrogate; the rare
        # slow path replaces it rather than losing the whole report.
        data = _repaired(model.model_dump(mode="json"))
        separators = (",", ":") if indent is None else (",", ": ")
        return json.dumps(data, ensure_ascii=False, indent=indent, separators=separators)
