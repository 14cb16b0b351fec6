"""One deterministic OpenAI- and Anthropic-compatible model both tools of the comparison call.

Every answer is a function of the request alone, so promptfoo and promptum see the same text
for the same rendered prompt:

- a grading prompt (promptfoo's llm-rubric, promptum's judge) gets a verdict in the asker's
  format: it fails when the graded output is empty or says "wrong", else passes;
- a prompt holding a key of the corpus's ``answers.json`` gets that answer (text, a tool call
  or JSON), the first key found wins;
- else a request offering tools calls the first tool, its required text arguments filled with
  the last word of the prompt; a ``json_schema`` response format gets an object of that
  schema; ``json_object`` gets ``{"answer": <prompt>}``; anything else is answered with the
  last user message itself, so what each tool rendered shows in the answer.

Embeddings are bags of hashed words (shared words make texts similar). Run
``python -m benchmarks.promptfoo_differential.fake_server ANSWERS`` to serve from another
process: it prints ``READY <base_url>``.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

PROMPTFOO_RUBRIC = "You are grading output according to a user-specified rubric"
PROMPTUM_JUDGE = "You are grading an AI assistant's response."
_PROMPTFOO_OUTPUT = re.compile(r"<Output>\n?(.*?)\n?</Output>", re.DOTALL)
_PROMPTUM_OUTPUT = re.compile(r"The assistant answered:\n(.*?)\n\nA good answer:", re.DOTALL)


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every message, an Anthropic ``system`` first."""
    found: list[tuple[str, str]] = []
    if "system" in body:
        found.append(("system", _text_of(body["system"])))
    messages = body.get("messages", [])
    if not isinstance(messages, list):  # promptfoo sends a prompt that parses as JSON as is
        return [*found, ("user", json.dumps(messages))]
    for message in messages:
        found.append((str(message.get("role", "")), _text_of(message.get("content"))))
    return found


def _judge_verdict(messages: list[tuple[str, str]]) -> dict[str, Any] | None:
    """A verdict in the grader's own format when the request is a grading prompt, else None."""
    whole = "\n".join(text for _, text in messages)
    if PROMPTFOO_RUBRIC in whole:
        # The last <Output>: the system message shows examples first.
        good = _good_answer((_PROMPTFOO_OUTPUT.findall(whole) or [""])[-1])
        reason = "the output is acceptable" if good else "the output is empty or says wrong"
        return {"reason": reason, "pass": good, "score": 1.0 if good else 0.0}
    if PROMPTUM_JUDGE in whole:
        good = _good_answer((_PROMPTUM_OUTPUT.findall(whole) or [""])[-1])
        reason = "the output is acceptable" if good else "the output is empty or says wrong"
        return {"score": 10 if good else 0, "reason": reason}
    return None


def _good_answer(output: str) -> bool:
    """The fake judge's rule: an answer passes unless it is empty or says "wrong"."""
    return bool(output.strip()) and "wrong" not in output.lower()


def _example(schema: dict[str, Any], filler: str) -> Any:
    """A value of this JSON schema: required properties only, strings set to `filler`."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = schema.get("required", list(properties))
        return {name: _example(properties[name], filler) for name in required if name in properties}
    if kind == "array":
        return [_example(schema.get("items", {"type": "string"}), filler)]
    if kind in ("number", "integer"):
        return 1
    if kind == "boolean":
        return True
    return filler


def _last_word(text: str) -> str:
    words = re.findall(r"[A-Za-z][\w-]*", text)
    return words[-1] if words else "nothing"


def _tool_schema(tool: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Name and parameter schema of an OpenAI or Anthropic tool definition."""
    if "function" in tool:
        return str(tool["function"]["name"]), tool["function"].get("parameters", {})
    return str(tool["name"]), tool.get("input_schema", {})


def decide(body: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    """What the model says: ``{"text": ...}`` or ``{"tool": name, "arguments": {...}}``."""
    messages = _messages(body)
    verdict = _judge_verdict(messages)
    if verdict is not None:
        return {"text": json.dumps(verdict)}
    whole = "\n".join(text for _, text in messages)
    for key, answer in answers.items():
        if key in whole:
            return dict(answer) if isinstance(answer, dict) else {"text": str(answer)}
    last_user = next((text for role, text in reversed(messages) if role == "user"), whole)
    tools = body.get("tools") or []
    if tools:
        name, schema = _tool_schema(tools[0])
        return {"tool": name, "arguments": _example(schema, _last_word(last_user))}
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema", {})
        return {"text": json.dumps(_example(schema, _last_word(last_user)))}
    if response_format.get("type") == "json_object":
        return {"text": json.dumps({"answer": last_user})}
    return {"text": last_user}


def _usage(body: dict[str, Any], text: str) -> dict[str, int]:
    prompt = sum(len(t.split()) for _, t in _messages(body))
    return {"prompt": prompt, "completion": len(text.split())}


def openai_answer(body: dict[str, Any], said: dict[str, Any]) -> dict[str, Any]:
    """A chat completion carrying `said`."""
    message: dict[str, Any] = {"role": "assistant", "content": said.get("text", "")}
    finish = "stop"
    if "tool" in said:
        message["content"] = None
        message["tool_calls"] = [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": said["tool"], "arguments": json.dumps(said["arguments"])},
            }
        ]
        finish = "tool_calls"
    usage = _usage(body, said.get("text", ""))
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": usage["prompt"],
            "completion_tokens": usage["completion"],
            "total_tokens": usage["prompt"] + usage["completion"],
        },
    }


def anthropic_answer(body: dict[str, Any], said: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic message carrying `said`."""
    content: list[dict[str, Any]]
    if "tool" in said:
        content = [
            {"type": "tool_use", "id": "toolu_0", "name": said["tool"], "input": said["arguments"]}
        ]
    else:
        content = [{"type": "text", "text": said.get("text", "")}]
    usage = _usage(body, said.get("text", ""))
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": content,
        "stop_reason": "tool_use" if "tool" in said else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage["prompt"], "output_tokens": usage["completion"]},
    }


def embedding_of(text: str) -> list[float]:
    """A text's embedding: its lower-cased words hashed into 64 counts, unit length."""
    counts = [0.0] * 64
    for word in re.findall(r"\w+", text.lower()):
        counts[zlib.crc32(word.encode()) % 64] += 1.0
    norm = math.sqrt(sum(c * c for c in counts)) or 1.0
    return [c / norm for c in counts]


def embeddings_answer(body: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI embeddings answer for one input or a list."""
    given = body.get("input", "")
    inputs = given if isinstance(given, list) else [given]
    return {
        "object": "list",
        "model": body.get("model", "fake"),
        "data": [
            {"object": "embedding", "index": i, "embedding": embedding_of(str(text))}
            for i, text in enumerate(inputs)
        ],
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }


class _Handler(BaseHTTPRequestHandler):
    answers: ClassVar[dict[str, Any]] = {}

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the comparison prints its own report."""

    def _send(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        """List one model, for clients that ask."""
        self._send({"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model"}]})

    def do_POST(self) -> None:
        """Answer a chat completion, an Anthropic message or an embeddings call."""
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/embeddings"):
            self._send(embeddings_answer(body))
        elif path.endswith("/messages"):
            self._send(anthropic_answer(body, decide(body, self.answers)))
        else:
            self._send(openai_answer(body, decide(body, self.answers)))


def load_answers(path: Path) -> dict[str, Any]:
    """The corpus's canned answers: prompt substring -> answer."""
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


@contextmanager
def fake_server(answers: dict[str, Any]) -> Iterator[str]:
    """Serve on 127.0.0.1 in this process; yields the root URL (``http://127.0.0.1:PORT``)."""
    handler = type("Handler", (_Handler,), {"answers": answers})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    """Serve until killed, printing ``READY <root_url>`` once listening."""
    with fake_server(load_answers(Path(sys.argv[1]))) as root:
        print(f"READY {root}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
