"""`promptum view --review FILE`: the viewer of one file of proposed cases, keep or drop each.

The page reads the file as it is when asked (with its sha256, which a write sends back);
the one write, ``POST /api/proposals``, passes the same locks as every viewer write
(`check_write`: the token, the origin, a JSON body) and the Host check, and then writes
the kept cases whole or not at all (see `promptum.viewer._keep_cases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from promptum.errors import ConfigError
from promptum.viewer._keep_cases import decisions_from, write_kept
from promptum.viewer._pages import workbench_page
from promptum.viewer._proposals import ReviewFile, read_proposals
from promptum.viewer._review import _json_body, _refusal
from promptum.viewer._save_case import SourceFile
from promptum.viewer._security import TOKEN_HEADER, RefusedError, WriteAccess, check_write

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response


def _sha(review: ReviewFile, which: str) -> str | None:
    path = review.path if which == "file" else review.into
    return None if path is None else SourceFile(path, 0).sha256()


def proposals_page(review: ReviewFile, access: WriteAccess | None, request: Request) -> Response:
    """``/``: one row per proposed case, to keep, edit or drop."""
    context = {"file": str(review.path), "target": str(review.target)}
    try:
        proposals = read_proposals(review.path.read_text(encoding="utf-8"))
        shas = _sha(review, "file"), _sha(review, "into")
    except (OSError, UnicodeDecodeError, ConfigError) as exc:
        # Changed or gone since the viewer started: said on the page, nothing to review.
        page = workbench_page("proposals.html.j2", **context, proposals=[], error=str(exc))
        page.status_code = 409
        return page
    return workbench_page(
        "proposals.html.j2",
        script="proposals.js" if access else "",
        **context,
        proposals=proposals,
        sha=shas[0],
        target_sha=shas[1],
        token_header=TOKEN_HEADER,
        review=access is not None,
        error=None,
    )


async def post_proposals(
    review: ReviewFile, access: WriteAccess | None, request: Request
) -> Response:
    """``POST /api/proposals``: write the kept (and edited) cases into the target suite."""
    from starlette.responses import JSONResponse

    try:
        check_write(request, access)
        data = await _json_body(request)
        sha, target_sha = data.get("sha256"), data.get("target_sha256")
        if not isinstance(sha, str) or not isinstance(target_sha, str | None):
            raise RefusedError(422, "sha256 (and target_sha256) must be the page's digests")
        written = write_kept(review, sha, target_sha, decisions_from(data))
    except RefusedError as exc:
        return _refusal(exc)
    except OSError as exc:  # a file (or folder) this user may not read or write
        return _refusal(RefusedError(403, f"cannot write {exc.filename}: {exc.strerror or exc}"))
    body = {
        "file": str(written.target),
        "kept": written.kept,
        "dropped": written.dropped,
        "renamed": written.renamed,
    }
    return JSONResponse(body, status_code=201)


def create_review_app(
    review: ReviewFile, *, hosts: Sequence[str], access: WriteAccess | None = None
) -> Starlette:
    """The review of `review`'s proposed cases, answering only requests to one of `hosts`."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.routing import Route

    return Starlette(
        routes=[
            Route("/", partial(proposals_page, review, access)),
            Route("/api/proposals", partial(post_proposals, review, access), methods=["POST"]),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
    )
