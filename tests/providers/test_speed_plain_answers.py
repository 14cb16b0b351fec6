"""An OpenAI-compatible answer read from its plain JSON gives what the SDK's typed one gave."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from openai.types.chat import ChatCompletion

from promptum.providers import EndpointConfig, ModelRequest
from promptum.providers._errors import ProviderError
from promptum.providers._openai import OpenAIProvider, _plain_answer, _typed_answer
from promptum.providers._route import Route
from promptum.values.completion import Completion
from promptum.values.run_result import Message

USUAL: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m-2024",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8},
}


def _with(path: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    """`USUAL` with the field at `path` set to `value` (removed when `value` is `...`)."""
    answer = copy.deepcopy(USUAL)
    place: Any = answer
    for key in path[:-1]:
        place = place[key]
    if value is ...:
        del place[path[-1]]
    else:
        place[path[-1]] = value
    return answer


PLAIN = [
    USUAL,
    _with(("model",), ...),
    _with(("model",), ""),
    _with(("usage",), ...),
    _with(("usage",), None),
    _with(("usage", "prompt_tokens"), ...),
    _with(("choices", 0, "message", "content"), None),
    _with(("choices", 0, "message", "content"), ""),
    _with(("choices", 0, "message", "refusal"), None),
    _with(("choices", 0, "message", "tool_calls"), []),
    _with(("choices", 0, "message", "tool_calls"), None),
]
"""Answers of the usual shape: read from the plain JSON."""

TYPED = [
    _with(("choices",), []),
    _with(("choices",), ...),
    _with(("choices",), "abc"),
    _with(("choices", 0), "abc"),
    _with(("choices", 0, "message"), ...),
    _with(("choices", 0, "message"), "abc"),
    _with(("choices", 0, "message", "content"), ["part"]),
    _with(("choices", 0, "message", "content"), 5),
    _with(("usage",), [1]),
    _with(("usage", "prompt_tokens"), "3"),
    _with(("usage", "prompt_tokens"), True),
    _with(("model",), 7),
    _with(
        ("choices", 0, "message", "tool_calls"),
        [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}],
    ),
]
"""Answers of another shape: built as the SDK builds them, as before."""


@pytest.fixture
def provider() -> OpenAIProvider:
    config = EndpointConfig(base_url="http://127.0.0.1:9/v1", api_key="sk-test")
    return OpenAIProvider(Route("e/m", "e", "openai", "m", config, "http://127.0.0.1:9"), 5.0)


REQUEST = ModelRequest(model="e/m", messages=(Message(role="user", content="Hi"),))


def _outcome(read: Any, *arguments: Any) -> Completion | str:
    """The completion `read` gives, or the error it raises, as text."""
    try:
        completion: Completion = read(*arguments)
    except ProviderError as exc:
        return f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # the typed path may fail on odd fields; so must the plain one
        return f"{type(exc).__name__}"
    return completion


@pytest.mark.parametrize("answer", PLAIN)
def test_an_answer_of_the_usual_shape_is_read_plain_giving_what_the_typed_one_gave(
    provider: OpenAIProvider, answer: dict[str, Any]
) -> None:
    plain = _plain_answer(copy.deepcopy(answer))
    assert plain is not None
    typed = _typed_answer(copy.deepcopy(answer), ChatCompletion)
    assert isinstance(typed, ChatCompletion)
    expected = _outcome(provider._completion, typed, REQUEST)
    got = _outcome(provider._plain_completion, plain, REQUEST)
    assert got == expected
    if isinstance(got, Completion) and isinstance(expected, Completion):
        assert got.model_fields_set == expected.model_fields_set
        assert got.model_dump_json() == expected.model_dump_json()


@pytest.mark.parametrize("answer", TYPED)
def test_an_answer_of_another_shape_goes_the_sdk_way(answer: dict[str, Any]) -> None:
    assert _plain_answer(copy.deepcopy(answer)) is None


def test_a_refusal_without_text_is_an_error_on_both_paths(provider: OpenAIProvider) -> None:
    answer = _with(("choices", 0, "message"), {"role": "assistant", "content": None})
    answer["choices"][0]["message"]["refusal"] = "I cannot help with that."
    plain = _plain_answer(copy.deepcopy(answer))
    assert plain is not None
    typed = _typed_answer(copy.deepcopy(answer), ChatCompletion)
    got = _outcome(provider._plain_completion, plain, REQUEST)
    assert got == _outcome(provider._completion, typed, REQUEST)
    assert got == "ProviderError: the model refused: I cannot help with that."


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("<html>oops</html>", "<html>oops</html>"),  # text of another content type
        ("null", None),
        ([1, 2], [1, 2]),
        (None, None),
    ],
)
def test_an_answer_that_is_no_object_stays_what_the_sdk_made_of_it(
    data: object, expected: object
) -> None:
    assert _plain_answer(data) is None
    assert _typed_answer(data, ChatCompletion) == expected


def test_text_of_another_content_type_holding_json_is_parsed_as_the_sdk_tries_it() -> None:
    typed = _typed_answer(json.dumps(USUAL), ChatCompletion)
    assert isinstance(typed, ChatCompletion)
    assert typed.choices[0].message.content == "Hi"
