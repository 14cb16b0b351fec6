"""A fake OpenAI Batch API and Anthropic Message Batches on 127.0.0.1, beside live chat calls.

Over the limited server (`limited_server`: chat completions and messages answered live,
as the judge and every call not in a batch are), it serves OpenAI's ``POST /v1/files``
(multipart, purpose ``batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}``,
``POST /v1/batches/{id}/cancel`` and ``GET /v1/files/{id}/content``, and Anthropic's
``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``, ``.../results`` and
``.../cancel``. A batch ends `delay_s` after it was created; every `fail_every`-th request
of a batch is answered with an error; with `refuse`, no batch is created (HTTP 400);
`delays` gives the n-th batch created a delay of its own. It counts what it was asked:
``submissions`` (batches created), ``requests`` (that they held), ``uploads``, ``polls``
(and each batch's own, `_Batch.polls`), ``cancels`` and ``downloads`` (result files and
results read)::

    with batch_server(delay_s=1.0) as server:
        ...  # an endpoint at server.base_url (OpenAI) or server.root_url (Anthropic)
        assert server.counts["submissions"] == 1
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from typing import Any

from tests.support.limited_server import (
    HttpRequest,
    LimitedServer,
    answer_of,
    http_answer,
    in_thread,
    reply,
)

_FAILURE = {"type": "server_error", "message": "the fake batch failed this request"}


@dataclass(slots=True)
class _Batch:
    ident: str
    anthropic: bool
    entries: list[dict[str, Any]]
    """OpenAI: the input file's lines; Anthropic: the requests (``custom_id``, ``params``)."""
    number: int
    """1 for the first batch the server created, and so on."""
    created: float = field(default_factory=time.monotonic)
    cancelled: bool = False
    polls: int = 0


def _multipart_file(request: HttpRequest) -> bytes:
    """The ``file`` part of a multipart/form-data upload."""
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = BytesParser().parsebytes(head + request.body)
    for part in message.get_payload():
        if (
            isinstance(part, Message)
            and part.get_param("name", header="content-disposition") == "file"
        ):
            data = part.get_payload(decode=True)
            if isinstance(data, bytes):
                return data
    raise ValueError("no file part in the upload")


@dataclass(slots=True)
class BatchServer:
    """The batches and files held, their delay and failures, and the counts."""

    delay_s: float = 0.0
    fail_every: int = 0
    """Every n-th request of a batch fails (0: none)."""
    refuse: bool = False
    """Refuse to create batches (HTTP 400), as past an organisation's batch queue limit."""
    delays: dict[int, float] = field(default_factory=dict)
    """The delay of the n-th batch created, where it is not `delay_s`."""
    live: LimitedServer = field(default_factory=lambda: LimitedServer(10**7, 10**10))
    """Answers the chat calls made live, and counts them (`live.counts.answered`)."""
    counts: Counter[str] = field(default_factory=Counter)
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, _Batch] = field(default_factory=dict)

    @property
    def root_url(self) -> str:
        """The server's root (Anthropic's base URL)."""
        return self.live.root_url

    @property
    def base_url(self) -> str:
        """The OpenAI-style API root (``.../v1``)."""
        return self.live.base_url

    def _ended(self, batch: _Batch) -> bool:
        delay = self.delays.get(batch.number, self.delay_s)
        return batch.cancelled or time.monotonic() - batch.created >= delay

    def _fails(self, index: int) -> bool:
        return self.fail_every > 0 and (index + 1) % self.fail_every == 0

    async def handle(self, request: HttpRequest) -> bytes:
        """The whole HTTP answer to one request."""
        parts = request.path.split("?")[0].strip("/").split("/")
        if parts[:3] == ["v1", "messages", "batches"]:
            return self._anthropic(request, parts[3:])
        if parts[:2] == ["v1", "batches"]:
            return self._openai_batch(request, parts[2:])
        if parts[:2] == ["v1", "files"]:
            return self._file(request, parts[2:])
        return await reply(self.live, request.path, request.body)

    def _refused(self) -> bytes:
        error = {"type": "invalid_request_error", "message": "the batch queue limit is reached"}
        return _json({"type": "error", "error": error}, 400)

    def _create(self, anthropic: bool, entries: list[dict[str, Any]]) -> _Batch:
        prefix = "msgbatch" if anthropic else "batch"
        number = len(self.batches) + 1
        batch = _Batch(f"{prefix}_{number:04d}", anthropic, entries, number)
        self.batches[batch.ident] = batch
        self.counts["submissions"] += 1
        self.counts["requests"] += len(entries)
        return batch

    def _file(self, request: HttpRequest, rest: list[str]) -> bytes:
        if request.method == "POST" and not rest:
            data = _multipart_file(request)
            ident = f"file-in-{len(self.files) + 1:04d}"
            self.files[ident] = data
            self.counts["uploads"] += 1
            return _json(_file_object(ident, len(data)))
        if len(rest) == 2 and rest[1] == "content" and rest[0] in self.files:
            self.counts["downloads"] += 1
            return http_answer(200, self.files[rest[0]], {}, "application/octet-stream")
        return _json({"error": {"message": "no such file"}}, 404)

    def _openai_batch(self, request: HttpRequest, rest: list[str]) -> bytes:
        if request.method == "POST" and not rest:
            if self.refuse:
                return self._refused()
            asked = json.loads(request.body)
            lines = self.files[asked["input_file_id"]].decode().splitlines()
            created = self._create(False, [json.loads(line) for line in lines if line])
            return _json(self._openai_state(created))
        batch = self.batches.get(rest[0]) if rest else None
        if batch is None:
            return _json({"error": {"message": "no such batch"}}, 404)
        self._looked_at(batch, cancel=rest[1:] == ["cancel"])
        return _json(self._openai_state(batch))

    def _looked_at(self, batch: _Batch, *, cancel: bool) -> None:
        """Count a look at `batch` (a poll), or cancel it."""
        if cancel:
            batch.cancelled = True
            self.counts["cancels"] += 1
        else:
            self.counts["polls"] += 1
            batch.polls += 1

    def _openai_state(self, batch: _Batch) -> dict[str, Any]:
        total = len(batch.entries)
        state: dict[str, Any] = {
            "id": batch.ident,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": "file-in",
            "completion_window": "24h",
            "created_at": int(time.time()),
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "request_counts": {"total": total, "completed": 0, "failed": 0},
        }
        if batch.cancelled:
            return {**state, "status": "cancelled"}
        if not self._ended(batch):
            return state
        output, errors = self._openai_files(batch)
        failed = sum(self._fails(index) for index in range(total))
        return {
            **state,
            "status": "completed",
            "output_file_id": output,
            "error_file_id": errors,
            "request_counts": {"total": total, "completed": total - failed, "failed": failed},
        }

    def _openai_files(self, batch: _Batch) -> tuple[str, str | None]:
        """The output and error files of an ended batch, written on first look."""
        output, errors = f"file-out-{batch.ident}", f"file-err-{batch.ident}"
        if output not in self.files:
            answered, failed = [], []
            for index, entry in enumerate(batch.entries):
                line: dict[str, Any] = {"id": f"req_{index}", "custom_id": entry["custom_id"]}
                if self._fails(index):
                    response = {"status_code": 500, "body": {"error": _FAILURE}}
                    failed.append({**line, "response": response, "error": None})
                else:
                    response = {"status_code": 200, "body": answer_of(entry["body"], False)}
                    answered.append({**line, "response": response, "error": None})
            self.files[output] = _jsonl(answered)
            if failed:
                self.files[errors] = _jsonl(failed)
        return output, errors if errors in self.files else None

    def _anthropic(self, request: HttpRequest, rest: list[str]) -> bytes:
        if request.method == "POST" and not rest:
            if self.refuse:
                return self._refused()
            created = self._create(True, json.loads(request.body)["requests"])
            return _json(self._anthropic_state(created))
        batch = self.batches.get(rest[0]) if rest else None
        if batch is None:
            return _json({"type": "error", "error": {"message": "no such batch"}}, 404)
        if rest[1:] == ["results"]:
            self.counts["downloads"] += 1
            data = _jsonl(self._anthropic_results(batch))
            return http_answer(200, data, {}, "application/binary")
        self._looked_at(batch, cancel=rest[1:] == ["cancel"])
        return _json(self._anthropic_state(batch))

    def _anthropic_state(self, batch: _Batch) -> dict[str, Any]:
        total = len(batch.entries)
        ended = self._ended(batch)
        failed = sum(self._fails(index) for index in range(total))
        counts = {"processing": total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch.cancelled:
            counts = {**counts, "processing": 0, "canceled": total}
        elif ended:
            counts = {**counts, "processing": 0, "succeeded": total - failed, "errored": failed}
        stamp = "2026-12-06T00:00:00Z"
        return {
            "id": batch.ident,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": stamp,
            "expires_at": stamp,
            "ended_at": stamp if ended else None,
            "cancel_initiated_at": stamp if batch.cancelled else None,
            "archived_at": None,
            "results_url": (
                f"{self.root_url}/v1/messages/batches/{batch.ident}/results" if ended else None
            ),
        }

    def _anthropic_results(self, batch: _Batch) -> list[dict[str, Any]]:
        results = []
        for index, entry in enumerate(batch.entries):
            if batch.cancelled:
                result: dict[str, Any] = {"type": "canceled"}
            elif self._fails(index):
                result = {"type": "errored", "error": {"type": "error", "error": _FAILURE}}
            else:
                result = {"type": "succeeded", "message": answer_of(entry["params"], True)}
            results.append({"custom_id": entry["custom_id"], "result": result})
        return results


def _file_object(ident: str, size: int) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": "batch.jsonl",
        "purpose": "batch",
        "status": "processed",
    }


def _json(payload: object, status: int = 200) -> bytes:
    return http_answer(status, json.dumps(payload).encode(), {})


def _jsonl(items: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(item) + "\n" for item in items).encode()


@contextmanager
def batch_server(delay_s: float = 0.0, fail_every: int = 0) -> Iterator[BatchServer]:
    """Serve the batch APIs on an event loop of its own thread until the block ends."""
    server = BatchServer(delay_s, fail_every)
    with in_thread(server.live, server.handle):
        yield server


def sdk_environment(server: BatchServer) -> dict[str, str]:
    """The variables pointing the ``openai`` and ``anthropic`` endpoints at `server`, keys set."""
    return {
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "test-openai-key",
        "ANTHROPIC_BASE_URL": server.root_url,
        "ANTHROPIC_API_KEY": "test-anthropic-key",
    }
