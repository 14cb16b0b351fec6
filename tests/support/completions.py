"""Model calls made from a test: requests completed one after another on one client."""

from __future__ import annotations

import asyncio

from promptum.providers import ModelClient, ModelRequest
from promptum.values.completion import Completion


def completed_in_turn(client: ModelClient, *requests: ModelRequest) -> list[Completion]:
    """Each request's completion, one after another on `client`, which is closed after."""

    async def run() -> list[Completion]:
        try:
            return [await client.complete(request) for request in requests]
        finally:
            await client.aclose()

    return asyncio.run(run())
