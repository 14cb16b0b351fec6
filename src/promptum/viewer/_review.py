"""The viewer's review pages and writes: one result with its reviews, a review, a saved case.

Reads need nothing; every write passes `check_write` first (the token, the origin, a JSON
body) and is then validated whole before anything is stored, so a refused write leaves the
store and the suite files as they were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptum.errors import StoreError
from promptum.reporting import part_views
from promptum.values.calibration import calibrate, labels
from promptum.values.case_result import CaseResult
from promptum.values.reviews import Review, skipped_note
from promptum.viewer._pages import workbench_page
from promptum.viewer._save_case import KINDS, append_case, locate, write_new_suite
from promptum.viewer._security import MAX_BODY, TOKEN_HEADER, RefusedError, WriteAccess, check_write

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from promptum.store import RunStore


def _refusal(exc: RefusedError) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": exc.reason}, status_code=exc.status)


def _find_result(
    store: RunStore, run_id: str, case: str, variant: str | None, model: str, repeat: int
) -> CaseResult:
    """The result of run `run_id` the four keys name; `RefusedError` 404 when there is none."""
    found = store.result(run_id, (case, variant or None, model, repeat))
    if found is not None:
        return found
    raise RefusedError(
        404,
        f"run {run_id} has no result of case {case!r} on {model!r}"
        f"{f', variant {variant!r}' if variant else ''}, repeat {repeat}",
    )


def _repeat(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise RefusedError(422, f"repeat must be a whole number from 1, not {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise RefusedError(422, f"repeat must be a whole number from 1, not {value!r}") from None
    if number < 1:
        raise RefusedError(422, f"repeat must be a whole number from 1, not {value!r}")
    return number


def _text(data: Mapping[str, Any], name: str, *, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None or value == "":
        if required:
            raise RefusedError(422, f"{name} is missing: name the result's {name}")
        return None
    if not isinstance(value, str):
        raise RefusedError(422, f"{name} must be text, not {type(value).__name__}")
    return value


def _locate_result(store: RunStore, data: Mapping[str, Any]) -> tuple[str, CaseResult]:
    """The run id (full) and the result a write's JSON names."""
    run_ref = _text(data, "run_id") or ""
    try:
        run_id = store.resolve(run_ref)
    except StoreError as exc:
        raise RefusedError(404, str(exc)) from None
    result = _find_result(
        store,
        run_id,
        _text(data, "case") or "",
        _text(data, "variant", required=False),
        _text(data, "model") or "",
        _repeat(data.get("repeat", 1)),
    )
    return run_id, result


def _criteria_of(result: CaseResult) -> list[str]:
    """The judge criteria graded on `result`, which a review may address one by one."""
    return list(dict.fromkeys(g.name for g in result.grades if g.kind == "judge"))


async def _json_body(request: Request) -> dict[str, Any]:
    # Read in chunks up to the limit: a body sent without Content-Length (chunked) is cut
    # off there rather than held whole in memory first.
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RefusedError(413, f"a write's body holds at most {MAX_BODY} bytes")
    try:
        data = json.loads(body)
        # JSON may spell a lone surrogate ("\ud800"): no text, and SQLite cannot store it.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RefusedError(400, f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise RefusedError(400, "the body nests too deep: send a JSON object of fields") from None
    except UnicodeEncodeError:
        raise RefusedError(400, "the body holds a lone surrogate (\\udXXX): not text") from None
    if not isinstance(data, dict):
        raise RefusedError(400, "the body must be a JSON object")
    return data


def _named_result(store: RunStore, request: Request) -> tuple[str, CaseResult]:
    """The run id (full) and the result the result page's URL names."""
    params = request.query_params
    if not params.get("case") or not params.get("model"):
        raise RefusedError(
            400,
            "name a result: ?case=SUITE/CASE&model=MODEL&repeat=N (and &variant=V); "
            "the run's matrix links to each",
        )
    run_id = store.resolve(request.path_params["run_id"])
    result = _find_result(
        store,
        run_id,
        params.get("case", ""),
        params.get("variant") or None,
        params.get("model", ""),
        _repeat(params.get("repeat", "1")),
    )
    return run_id, result


def _save_state(result: CaseResult, root: Path) -> tuple[str | None, str | None]:
    """The digest of the result's suite file, or why a case cannot be saved into it."""
    try:
        return locate(result.source, root).sha256(), None
    except RefusedError as exc:
        return None, exc.reason
    except OSError as exc:
        return None, f"cannot read {result.source}: {exc.strerror or exc}"


def result_page(
    store: RunStore, access: WriteAccess | None, root: Path, request: Request
) -> Response:
    """``/runs/{run_id}/result?case=&model=&repeat=``: one result with its reviews."""
    try:
        run_id, result = _named_result(store, request)
    except RefusedError as exc:
        refused = workbench_page("result.html.j2", status=exc.status, error=exc.reason)
        refused.status_code = exc.status
        return refused
    reviews = store.reviews_by_result(run_id).get(
        (result.key, result.variant or None, result.model, result.repeat), []
    )
    sha, save_problem = _save_state(result, root)
    return workbench_page(
        "result.html.j2",
        script="review.js" if access else "",
        run_id=run_id,
        result=result,
        parts=[part_views(message.parts) for message in result.messages],
        reviews=reviews,
        criteria=_criteria_of(result),
        review=access is not None,
        reviewer=access.reviewer if access else None,
        token_header=TOKEN_HEADER,
        sha=sha,
        save_problem=save_problem,
        kinds=KINDS,
        error=None,
        skipped=skipped_note(store.skipped_reviews([run_id])),
    )


def _review_of(data: Mapping[str, Any], run_id: str, result: CaseResult, reviewer: str) -> Review:
    """The review a write's JSON says of `result`; `RefusedError` 422 when it is not one."""
    criterion = _text(data, "criterion", required=False)
    if criterion is not None and criterion not in _criteria_of(result):
        raise RefusedError(
            422,
            f"criterion {criterion!r} was not graded on this result; graded: "
            f"{', '.join(_criteria_of(result)) or 'none'}",
        )
    try:
        return Review(
            run_id=run_id,
            case_key=result.key,
            variant=result.variant or None,
            model=result.model,
            repeat=result.repeat,
            criterion=criterion,
            verdict=data.get("verdict") or None,
            override=data.get("override") or None,
            score=data.get("score"),
            comment=data.get("comment") or None,
            reason=data.get("reason") or None,
            reviewer=reviewer,
        )
    except ValueError as exc:
        raise RefusedError(422, str(exc)) from None


def _stored(store: RunStore, review: Review) -> Review:
    """`review` as the store keeps it (secrets replaced); `RefusedError` if it cannot."""
    try:
        return store.add_review(review)
    except StoreError as exc:
        raise RefusedError(404, str(exc)) from None
    except ValueError as exc:  # a secret replaced in the comment made it too long
        raise RefusedError(422, str(exc)) from None


async def post_review(store: RunStore, access: WriteAccess | None, request: Request) -> Response:
    """``POST /api/reviews``: store a person's review of one result (review mode only)."""
    from starlette.responses import JSONResponse

    try:
        writer = check_write(request, access)
        data = await _json_body(request)
        run_id, result = _locate_result(store, data)
        stored = _stored(store, _review_of(data, run_id, result, writer.reviewer))
    except RefusedError as exc:
        return _refusal(exc)
    # The label is how the page shows it, said back once the page has reloaded.
    return JSONResponse({"review": stored.to_dict(), "label": stored.label}, status_code=201)


async def post_save_case(
    store: RunStore, access: WriteAccess | None, root: Path, request: Request
) -> Response:
    """``POST /api/save-case``: save a result's query as a case of a suite under `root`."""
    from starlette.responses import JSONResponse

    try:
        check_write(request, access)
        data = await _json_body(request)
        _, result = _locate_result(store, data)
        source = locate(result.source, root)
        case_id = _text(data, "id", required=False) or f"{result.case_id}-reviewed"
        sha, new_file = _text(data, "sha256") or "", _text(data, "new_file", required=False)
        kind, value = _text(data, "kind") or "", _text(data, "value") or ""
        if new_file is None:
            written = append_case(source, sha, case_id, kind, value)
        else:
            written = write_new_suite(source, sha, new_file, case_id, kind, value)
    except RefusedError as exc:
        return _refusal(exc)
    except OSError as exc:  # a suite file (or folder) this user may not read or write
        where = Path(exc.filename).name if exc.filename else "the suite file"
        return _refusal(RefusedError(403, f"cannot save into {where}: {exc.strerror or exc}"))
    shown = written.path.relative_to(root.resolve())
    return JSONResponse({"id": case_id, "file": str(shown), "line": written.line}, status_code=201)


def start_page(access: WriteAccess | None, request: Request) -> Response:
    """``/review``: where reviewing starts."""
    return workbench_page(
        "review_start.html.j2",
        script="review.js" if access else "",
        review=access is not None,
        reviewer=access.reviewer if access else None,
    )


def calibrate_page(store: RunStore, request: Request) -> Response:
    """``/calibrate?run=&suite=&criterion=``: the judge's agreement with people's reviews."""
    params = request.query_params
    runs = [ref for ref in params.getlist("run") if ref]
    suite = params.get("suite") or None
    criterion = params.get("criterion") or None
    rows = calibrate(labels(store.reviewed(runs, suite=suite), criterion=criterion))
    return workbench_page(
        "calibrate.html.j2",
        rows=rows,
        runs=runs,
        suite=suite,
        criterion=criterion,
        skipped=skipped_note(store.skipped_reviews(runs)),
    )


def review_routes(store: RunStore, access: WriteAccess | None, root: Path) -> list[Route]:
    """The result page, the calibration page and the two writes, for `create_app`."""
    from starlette.routing import Route

    return [
        Route("/calibrate", partial(calibrate_page, store)),
        Route("/review", partial(start_page, access)),
        Route("/runs/{run_id}/result", partial(result_page, store, access, root)),
        Route("/api/reviews", partial(post_review, store, access), methods=["POST"]),
        Route("/api/save-case", partial(post_save_case, store, access, root), methods=["POST"]),
    ]
