"""Tool definitions the tool-call tests offer to models (OpenAI's function schema), and the
question that offers one."""

from __future__ import annotations

import asyncio
from typing import Any

from promptum.providers import ClientOptions, ModelClient, ModelRequest
from promptum.values.completion import Completion
from promptum.values.run_result import Message

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


TRANSFER_MONEY = """\
tools:
  - type: function
    function:
      name: transfer_money
      parameters:
        type: object
        properties:
          account: {type: string}
          amount: {type: number}
          currency: {type: string, enum: [EUR, USD]}
        required: [account, amount]
"""
"""Suite keys offering one tool, `transfer_money(account, amount, currency)`."""


def ask_weather(model: str, choice: Any, options: ClientOptions) -> Completion:
    """Ask `model` the weather in Paris, offering `WEATHER` with `tool_choice=choice`."""

    async def ask() -> Completion:
        client = ModelClient(options)
        try:
            request = ModelRequest(
                model=model,
                messages=(Message(role="user", content="What is the weather in Paris?"),),
                tools=(WEATHER,),
                tool_choice=choice,
                max_tokens=64,
            )
            return await client.complete(request)
        finally:
            await client.aclose()

    return asyncio.run(ask())
