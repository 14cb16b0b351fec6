"""Call a model directly with promptum's `ModelClient`: free text, then structured output.

    python examples/model_client.py                      # the embedded model, no key needed
    python examples/model_client.py openai/gpt-4o-mini   # any model id (needs OPENAI_API_KEY)

Run it twice: the second run is answered from the response cache (.promptum/cache.sqlite).
"""

from __future__ import annotations

import asyncio
import sys

from pydantic import BaseModel

from promptum.errors import PromptumError
from promptum.providers import DEFAULT_MODEL, ClientOptions, ModelClient, ModelRequest
from promptum.values.run_result import Message


class City(BaseModel):
    name: str
    country: str


async def main(model: str) -> None:
    client = ModelClient(ClientOptions(timeout_s=30, max_retries=2))
    client.check_model(model)  # a missing key or extra stops here, before any call
    try:
        question = (Message(role="user", content="Name the capital city of France in one word."),)
        answer = await client.complete(
            ModelRequest(model=model, messages=question, temperature=0, max_tokens=24)
        )
        print(f"text:   {answer.text!r}")
        print(
            f"        {answer.input_tokens} in / {answer.output_tokens} out tokens, "
            f"{answer.latency_ms:.0f} ms, cost {answer.cost_usd}, cached {answer.cached}"
        )

        # Structured output: the schema constrains the answer (a grammar for local models,
        # json_schema for OpenAI, a forced tool for Anthropic) and is checked on arrival.
        structured = await client.complete(
            ModelRequest(
                model=model,
                messages=(Message(role="user", content="What is the capital of France?"),),
                temperature=0,
                max_tokens=40,
                response_schema=City.model_json_schema(),
            )
        )
        if structured.ok:
            print(f"output: {City.model_validate(structured.output)!r}")
        else:
            print(f"error:  {structured.error}")  # a failed call is data, never an exception
    finally:
        await client.aclose()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_MODEL))
    except PromptumError as exc:
        sys.exit(f"error: {exc}")
