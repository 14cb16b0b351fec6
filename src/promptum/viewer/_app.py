"""The viewer's web application: runs, a run, a comparison and a case's history, read-only.

Nothing here serves files: every page is rendered from the store, so no URL can reach a
path on disk. Pages run no script of the data's (see `promptum.compare.render_page` and
the HTML report), and a Host check refuses DNS-rebinding pages that would read the local
server from a browser. Each page is a handler of its own, taking the store it reads;
`create_app` binds them to the store and routes to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from promptum.errors import ConfigError
from promptum.store import RunStore, StoreError
from promptum.values.reviews import skipped_note
from promptum.viewer._banner import with_banner
from promptum.viewer._matrix import matrix_routes
from promptum.viewer._review import review_routes
from promptum.viewer._security import WriteAccess
from promptum.viewer._trends import trends_routes

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def _page(template: str, code: int = 200, **context: object) -> Response:
    from starlette.responses import HTMLResponse

    from promptum.compare import render_page

    html = render_page(template, packages=("promptum.viewer",), viewer=True, **context)
    return HTMLResponse(html, status_code=code, headers=_HEADERS)


def _error(status: int, message: str) -> Response:
    return _page("error.html.j2", status, status=status, message=message)


def runs_page(store: RunStore, request: Request) -> Response:
    """``/``: the stored runs, newest first, filtered by ``?suite=`` and ``?model=``."""
    suite = request.query_params.get("suite", "")
    model = request.query_params.get("model", "")
    listed = store.list_runs(limit=500, suite=suite or None, model=model or None)
    every = store.list_runs(limit=500)
    all_models = sorted({m for run in every for m in run.models})
    return _page(
        "runs.html.j2",
        runs=listed,
        suite=suite,
        model=model,
        all_models=all_models,
        store_path=str(store.path),
    )


def run_page(store: RunStore, request: Request) -> Response:
    """``/runs/{run_id}``: the run's HTML report, with people's reviews."""
    from starlette.responses import HTMLResponse

    from promptum.reporting import render_report

    loaded = store.load(request.path_params["run_id"])
    reviews = store.reviews_by_result(loaded.run_id)
    page = render_report(loaded, "html", reviews=reviews)
    note = skipped_note(store.skipped_reviews([loaded.run_id]))
    return HTMLResponse(with_banner(page, note), headers=_HEADERS)


def compare_page(store: RunStore, request: Request) -> Response:
    """``/compare?a=RUN&b=RUN``: two runs compared (optionally one model of each)."""
    from starlette.responses import HTMLResponse

    from promptum.compare import compare_runs, comparison_html

    params = request.query_params
    a, b = params.get("a"), params.get("b") or params.get("a")
    if not a or not b:
        return _error(400, "choose two runs to compare (parameters a and b)")
    model_a, model_b = params.get("model_a"), params.get("model_b")
    pairs = [(model_a, model_b)] if model_a and model_b else None
    comparison = compare_runs(store.load(a), store.load(b), pairs)
    return HTMLResponse(comparison_html(comparison, viewer=True), headers=_HEADERS)


def case_page(store: RunStore, request: Request) -> Response:
    """``/cases?id=CASE``: one case's results over the stored runs."""
    case_id = request.query_params.get("id", "")
    if not case_id:
        return _error(400, "name a case: /cases?id=CASE_ID")
    model = request.query_params.get("model") or None
    entries = store.case_history(case_id, model=model)
    return _page("case.html.j2", case_id=case_id, model=model, entries=entries)


async def _http_error(request: Request, exc: Exception) -> Response:
    from starlette.exceptions import HTTPException

    detail = exc.detail if isinstance(exc, HTTPException) else "not found"
    return _error(exc.status_code if isinstance(exc, HTTPException) else 404, str(detail))


async def _missing_run(request: Request, exc: Exception) -> Response:
    return _error(404, str(exc))


async def _bad_request(request: Request, exc: Exception) -> Response:
    return _error(400, str(exc))


def create_app(
    store: RunStore,
    *,
    hosts: Sequence[str] = LOCAL_HOSTS,
    access: WriteAccess | None = None,
    root: Path | None = None,
) -> Starlette:
    """The viewer for `store`, answering only requests addressed to one of `hosts`.

    `access` (review mode) lets requests carrying its token write reviews and save cases
    into suite files under `root` (the current folder by default); without it nothing writes.
    """
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.routing import Route

    return Starlette(
        routes=[
            Route("/", partial(runs_page, store)),
            Route("/runs/{run_id}", partial(run_page, store)),
            Route("/compare", partial(compare_page, store)),
            Route("/cases", partial(case_page, store)),
            *matrix_routes(store),
            *trends_routes(store),
            *review_routes(store, access, root or Path.cwd()),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
        exception_handlers={
            HTTPException: _http_error,
            StoreError: _missing_run,
            ConfigError: _bad_request,
        },
    )
