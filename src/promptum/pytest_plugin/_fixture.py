"""The `promptum` fixture: model calls and `assert_prompt` on the session's client and cache."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Unpack

from pydantic import BaseModel

from promptum.pytest_plugin._assert import (
    ModelCallError,
    PromptChecks,
    check_response,
    shared,
)
from promptum.pytest_plugin._engine import Engine
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult, Message


class PromptumFixture:
    """What a test gets as ``promptum``: `complete` a prompt, `assert_prompt` the answer.

    Every call goes through one model client per pytest session (per xdist worker): the
    response cache in ``.promptum/cache.sqlite``, retries, rate limits and the embedded
    model loaded once.
    """

    def __init__(self, engine: Callable[[], Engine]) -> None:
        self._engine = engine

    def complete(
        self,
        model: str,
        prompt: str | None = None,
        *,
        system: str | None = None,
        messages: Sequence[Message | Mapping[str, str]] = (),
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        response_model: type[BaseModel] | Mapping[str, Any] | None = None,
    ) -> Completion:
        """Ask `model` one `prompt` (or a conversation of `messages`); raise if the call failed.

        With `response_model` (a pydantic model or a JSON Schema) the answer is structured:
        its parsed fields are in ``.output``.
        """
        __tracebackhide__ = True
        from promptum.errors import ConfigError
        from promptum.providers import ModelRequest

        if (prompt is None) == (not messages):
            raise ConfigError(
                "promptum.complete(): give a prompt or messages (a conversation), not both"
            )
        turns = [Message(role="system", content=system)] if system is not None else []
        if prompt is not None:
            turns.append(Message(role="user", content=prompt))
        turns += [Message.model_validate(message) for message in messages]
        schema: dict[str, Any] | None = None
        if isinstance(response_model, type) and issubclass(response_model, BaseModel):
            schema = response_model.model_json_schema()
        elif response_model is not None:
            schema = dict(response_model)
        request = ModelRequest(
            model=model,
            messages=tuple(turns),
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            response_schema=schema,
        )
        completion = self._engine().complete(request)
        if completion.error is not None:
            raise ModelCallError(f"the call to {model} failed: {completion.error}")
        return completion

    def assert_prompt(self, response: object, **options: Unpack[PromptChecks]) -> CaseResult:
        """`promptum.pytest_plugin.assert_prompt`, judging with the session's client."""
        __tracebackhide__ = True
        return check_response(response, options, lambda: shared(self._engine()))
