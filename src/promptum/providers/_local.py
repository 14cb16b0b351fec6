"""The embedded model: a GGUF file run in this process by llama-cpp-python.

Each file is loaded once per process and shared by every client; llama.cpp contexts are not
thread-safe, so one lock per model serialises its calls, which run in a worker thread to keep
the event loop free. Calls are not interrupted by the client's timeout (llama.cpp cannot be
stopped mid-generation from outside); ``max_tokens`` bounds them instead.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptum.providers._base import ModelRequest
from promptum.providers._errors import BadRequestError, ProviderError
from promptum.providers._local_model import context_size, default_threads
from promptum.providers._tools import openai_message, parsed_call
from promptum.values.completion import Completion

if TYPE_CHECKING:
    from llama_cpp import Llama

    from promptum.providers._route import Route

DEFAULT_MAX_TOKENS = 512
"""Output cap when a request sets none, so a rambling small model cannot run for minutes."""
DEFAULT_SEED = 0
"""With temperature 0 (the local default) and this seed, answers repeat exactly."""

_LOAD_LOCK = threading.Lock()
_MODELS: dict[tuple[Path, int, int], tuple[Llama, threading.Lock]] = {}


@atexit.register
def _close_models() -> None:
    # Free the models while llama_cpp is still whole: left to garbage collection at
    # interpreter teardown, Llama.__del__ runs after the library's globals are gone and
    # prints a traceback.
    with _LOAD_LOCK:
        for llm, _ in _MODELS.values():
            llm.close()
        _MODELS.clear()


def load_model(path: Path, threads: int, n_ctx: int) -> tuple[Llama, threading.Lock]:
    """The shared model for a GGUF file and its call lock, loaded on first use."""
    key = (path, threads, n_ctx)
    with _LOAD_LOCK:
        if key not in _MODELS:
            from llama_cpp import Llama

            try:
                llm = Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=threads,
                    n_threads_batch=threads,
                    seed=DEFAULT_SEED,
                    verbose=False,
                )
            except (ValueError, RuntimeError) as exc:
                raise ProviderError(
                    f"llama.cpp cannot load {path}: is it a GGUF model file?"
                ) from exc
            _MODELS[key] = (llm, threading.Lock())
        return _MODELS[key]


def _arguments(request: ModelRequest) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "messages": [openai_message(m) for m in request.messages],
        "temperature": 0.0 if request.temperature is None else request.temperature,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        # Each repeat gets its own seed: reproducible, yet fresh samples when temperature > 0.
        "seed": DEFAULT_SEED + request.sample if request.seed is None else request.seed,
        **request.extra,
    }
    if request.top_p is not None:
        arguments["top_p"] = request.top_p
    if request.response_schema is not None:
        # llama.cpp turns the schema into a grammar: the output cannot leave it.
        arguments["response_format"] = {"type": "json_object", "schema": request.response_schema}
    return arguments


def _with_tools(llm: Llama, request: ModelRequest, arguments: dict[str, Any]) -> Any:
    """A chat completion through llama-cpp-python's ChatML function-calling handler.

    SmolLM2's template is ChatML, so the handler's prompt fits it; the model is loaded
    without a chat format (its own template serves every other call), so the handler is
    called directly for requests with tools.
    """
    from llama_cpp.llama_chat_format import chatml_function_calling

    choice = request.tool_choice if request.tool_choice is not None else "auto"
    if choice == "required":  # the handler asserts on it
        raise BadRequestError(
            "the embedded model cannot take tool_choice 'required': use 'auto' or name the "
            'function ({"type": "function", "function": {"name": ...}})'
        )
    arguments.pop("seed", None)  # the handler samples with the model's own seed
    return chatml_function_calling(
        llama=llm, tools=list(request.tools or ()), tool_choice=choice, **arguments
    )


def _refuse_parts(request: ModelRequest) -> None:
    """Refuse, not drop, a message's parts: an answer given without the image would be graded."""
    parts = [part for message in request.messages for part in message.parts or ()]
    if parts:
        raise BadRequestError(
            f"{parts[0].described}: the embedded model reads text only; run this case "
            "on a model that reads images, documents or audio (docs/multimodal.md)"
        )


def _with_context_hint(message: str, request: ModelRequest, n_ctx: int) -> str:
    """llama.cpp's refusal `message`, and what to do when the context was too small."""
    if "exceed context window" not in message:  # "Requested tokens (3000) exceed context..."
        return message
    if request.tools is not None:
        # llama-cpp-python's function-calling handler adds each tool call the model makes to
        # the prompt, and asks again until the model stops calling tools.
        return (
            f"{message}: with tools, every call the model makes is added to the prompt; "
            f"raise PROMPTUM_LOCAL_CTX (now {n_ctx}) or offer fewer tools"
        )
    return f"{message}: shorten the prompt or raise PROMPTUM_LOCAL_CTX (now {n_ctx})"


class LocalProvider:
    """Runs ``local/...`` models in-process; one instance per GGUF file."""

    def __init__(self, route: Route, timeout_s: float) -> None:
        self.path = Path(route.name)  # routing resolved the GGUF file
        self.threads = default_threads()
        self.n_ctx = context_size()

    def _generate(self, request: ModelRequest) -> tuple[dict[str, Any], float]:
        llm, lock = load_model(self.path, self.threads, self.n_ctx)
        arguments = _arguments(request)
        with lock:
            # Timed here, not by the client, so neither the first call's model load nor
            # the wait for the lock counts as the model's latency.
            started = time.perf_counter()
            try:
                if request.tools is not None:
                    response: Any = _with_tools(llm, request, arguments)
                else:
                    response = llm.create_chat_completion(**arguments)
            except TypeError as exc:
                raise BadRequestError(f"unsupported parameter for a local model: {exc}") from exc
            except ValueError as exc:
                raise BadRequestError(_with_context_hint(str(exc), request, self.n_ctx)) from exc
            except RuntimeError as exc:
                raise ProviderError(f"llama.cpp failed: {exc}") from exc
            latency_ms = (time.perf_counter() - started) * 1000
        result: dict[str, Any] = response
        return result, latency_ms

    async def complete(self, request: ModelRequest) -> Completion:
        """Generate an answer with the local model, off the event loop."""
        _refuse_parts(request)
        response, latency_ms = await asyncio.to_thread(self._generate, request)
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        wanted = request.max_tokens or DEFAULT_MAX_TOKENS
        produced = usage.get("completion_tokens") or 0
        cut = choice.get("finish_reason") == "length" and produced < wanted
        if cut and request.response_schema is not None:
            # llama-cpp-python quietly lowers max_tokens to what the context has left; the
            # JSON it cut short cannot parse, and "not a JSON object" would hide why.
            raise BadRequestError(
                f"the prompt ({usage.get('prompt_tokens')} tokens) left room for only {produced} "
                f"of the {wanted} answer tokens in the {self.n_ctx}-token context: shorten the "
                "prompt or raise PROMPTUM_LOCAL_CTX"
            )
        calls = tuple(
            parsed_call(call["function"]["name"], call["function"].get("arguments"), call.get("id"))
            for call in choice["message"].get("tool_calls") or ()
        )
        return Completion(
            tool_calls=calls,
            text=choice["message"].get("content") or "",
            model=request.model,
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
            latency_ms=latency_ms,
        )

    async def aclose(self) -> None:
        """Nothing to close: the model stays loaded, shared by the whole process."""
