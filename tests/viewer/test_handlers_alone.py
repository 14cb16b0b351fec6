"""The viewer's handlers called alone: a real store and a Starlette request, no server."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

from starlette.requests import Request

from promptum.store import RunStore
from promptum.viewer import WriteAccess
from promptum.viewer._app import runs_page
from promptum.viewer._review import post_review, result_page
from promptum.viewer._security import TOKEN_HEADER
from tests.store.samples import T0, make_run, mixed_outcomes
from tests.store.test_store import record
from tests.viewer.review_support import RUN, make_project, target


def _request(
    path: str,
    query: dict[str, str] | None = None,
    *,
    path_params: dict[str, str] | None = None,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> Request:
    """The request Starlette would hand a handler for `path` (and a body to read)."""
    scope = {
        "type": "http",
        "method": "POST" if body else "GET",
        "scheme": "http",
        "server": ("127.0.0.1", 8765),
        "path": path,
        "query_string": urlencode(query or {}).encode(),
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "path_params": path_params or {},
    }
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, object]:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    return Request(scope, receive)


def _write(access: WriteAccess, data: dict[str, object]) -> Request:
    body = json.dumps(data).encode()
    headers = {
        "content-type": "application/json",
        "content-length": str(len(body)),
        "host": "127.0.0.1:8765",
        TOKEN_HEADER: access.token,
    }
    return _request("/api/reviews", body=body, headers=headers)


def test_the_runs_page_lists_only_the_suite_asked_for(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    outcomes = mixed_outcomes(cases=2, repeats=1)
    record(store, make_run("run-geo", outcomes, started=T0, suite="geo"))
    record(store, make_run("run-math", outcomes, started=T0 + timedelta(hours=1), suite="math"))

    response = runs_page(store, _request("/", {"suite": "geo"}))

    page = bytes(response.body).decode()
    assert response.status_code == 200
    assert "run-geo" in page
    assert "run-math" not in page


def test_a_result_page_without_a_case_is_refused_with_what_to_name(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    _, store = make_project(root)

    response = result_page(
        store, None, root, _request(f"/runs/{RUN}/result", path_params={"run_id": RUN})
    )

    assert response.status_code == 400
    assert "name a result" in bytes(response.body).decode()


def test_a_review_is_stored_by_the_handler_alone_and_refused_without_review_mode(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    _, store = make_project(root)
    access = WriteAccess("ada")
    data = {**target(), "verdict": "bad", "comment": "wrong city"}

    refused = asyncio.run(post_review(store, None, _write(access, data)))
    assert refused.status_code == 403
    assert store.reviews(RUN) == []

    stored = asyncio.run(post_review(store, access, _write(access, data)))
    assert stored.status_code == 201, bytes(stored.body)
    [review] = store.reviews(RUN)
    assert (review.case_key, review.verdict, review.comment, review.reviewer) == (
        "support/capital", "bad", "wrong city", "ada",
    )  # fmt: skip
