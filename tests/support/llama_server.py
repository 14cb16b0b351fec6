"""Start a real OpenAI-compatible server (``python -m llama_cpp.server``) on 127.0.0.1.

It serves the embedded SmolLM2 GGUF (or any GGUF you give) and answers one request at a time::

    from tests.support.llama_server import llama_server

    with llama_server() as base_url:          # "http://127.0.0.1:<port>/v1"
        client = ModelClient(ClientOptions(endpoints={
            "llamacpp": EndpointConfig(base_url=base_url, max_concurrency=1),
        }))
        ...  # "llamacpp/smollm2" is now served by the server

Needs the ``llama-cpp-python[server]`` extra (``promptum[dev]``). The server is stopped (and
killed if it lingers) when the block ends; if it exits or is not ready within
``ready_timeout_s``, `LlamaServerError` carries the end of its log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from promptum.providers import local_model_path
from promptum.values.completion import Completion


class LlamaServerError(RuntimeError):
    """The server exited or did not become ready."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


@contextmanager
def llama_server(
    model: Path | None = None,
    *,
    alias: str = "smollm2",
    threads: int = 1,
    n_ctx: int = 2048,
    ready_timeout_s: float = 60.0,
    chat_format: str | None = None,
) -> Iterator[str]:
    """Run the server for the block; yield its OpenAI base URL (``http://127.0.0.1:P/v1``)."""
    path = model or local_model_path("smollm2")
    port = _free_port()
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(path), "--model_alias", alias,
        "--host", "127.0.0.1", "--port", str(port),
        "--n_threads", str(threads), "--n_threads_batch", str(threads),
        "--n_ctx", str(n_ctx),
    ]  # fmt: skip
    if chat_format is not None:  # e.g. "chatml-function-calling" for tool calls
        command += ["--chat_format", chat_format]
    base_url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "NO_PROXY": "*"}
        )
        try:
            deadline = time.monotonic() + ready_timeout_s
            while not _ready(base_url + "/models"):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    tail = log.read().decode(errors="replace")[-2000:]
                    raise LlamaServerError(f"llama_cpp.server did not start:\n{tail}")
                time.sleep(0.1)
            yield base_url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def assert_answered_paris(completion: Completion, model: str) -> None:
    """SmolLM2 asked the capital of France in one word (24 tokens at most) said Paris, with
    its token counts."""
    assert completion.ok, completion.error
    assert "Paris" in completion.text
    assert completion.model == model
    assert completion.input_tokens is not None
    assert completion.input_tokens > 10
    assert completion.output_tokens is not None
    assert 0 < completion.output_tokens <= 24
