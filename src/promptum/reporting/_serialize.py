"""JSON from the pydantic models, even when a model returned text UTF-8 cannot hold."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

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
    except PydanticSerializationError:
        # A JSON API may send a `\ud800` escape, which decodes to a lone surrogate; the rare
        # slow path replaces it rather than losing the whole report.
        data = _repaired(model.model_dump(mode="json"))
        separators = (",", ":") if indent is None else (",", ": ")
        return json.dumps(data, ensure_ascii=False, indent=indent, separators=separators)
