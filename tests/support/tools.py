"""Tool definitions the tool-call tests offer to models (OpenAI's function schema)."""

from __future__ import annotations

from typing import Any

WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather of a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
"""A one-argument tool the embedded model can call correctly ("the weather in Paris")."""
