"""The matrix of a run: cases × (model · variant) columns, filtered and paged by the store.

The page is a shell; its script asks `/api/runs/{run}/matrix` for one page of cases at a
time, so a 100,000-result run costs one page of results per request, and
`/api/diff` for a word-level diff of one case's answer between two runs or two columns.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from promptum.errors import ConfigError
from promptum.reporting import part_views
from promptum.store import MatrixCase, MatrixFilter, RunStore, StoreError
from promptum.values.case_result import TURN
from promptum.viewer._diff import word_diff
from promptum.viewer._pages import HEADERS, workbench_page

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from promptum.values.completion import Completion
    from promptum.values.run_result import CaseResult

PAGE = 50
"""Cases per page unless the page asks for another number."""
ANSWER_LIMIT = 20_000
"""Characters of an answer sent to the page; the diff reads the whole answer."""
_FLAGS = ("failed", "errored", "flaky", "must_pass")


def _number(params: Any, name: str, default: int) -> int:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value < 0:
        raise ConfigError(f"{name} must be 0 or more, got {value}")
    return value


def _filter(store: RunStore, params: Any) -> MatrixFilter:
    changed = params.get("changed") or None
    flags = {flag: params.get(flag) in ("1", "on", "true") for flag in _FLAGS}
    return MatrixFilter(
        failed=flags["failed"],
        errored=flags["errored"],
        flaky=flags["flaky"],
        must_pass=flags["must_pass"],
        tag=params.get("tag", ""),
        suite=params.get("suite", ""),
        search=params.get("q", ""),
        changed_since=store.resolve(changed) if changed else None,
    )


def _column(run_id: str, model: str, variant: str, two_runs: bool) -> dict[str, str]:
    label = f"{model} · {variant}" if variant else model
    return {
        "run": run_id,
        "model": model,
        "variant": variant,
        "label": f"{label} @ {run_id}" if two_runs else label,
    }


def _turn(result: CaseResult) -> tuple[dict[str, Any] | None, Completion]:
    """A conversation's turn the cell shows (the first failing one, else the last), and its reply.

    The last reply alone would hide why a conversation failed earlier.
    """
    if not result.turns:
        return None, result.completion
    number = result.failing_turn or len(result.turns)
    turn = result.turns[number - 1]
    shown = {
        "number": number,
        "of": len(result.turns),
        "failing": result.failing_turn is not None,
        "query": turn.query[:ANSWER_LIMIT],
    }
    return shown, turn.completion


def _entry(result: CaseResult) -> dict[str, Any]:
    """One repeat of a cell as the page shows it: answer, status and grades as pills."""
    turn, completion = _turn(result)
    text = completion.text or ""
    return {
        "repeat": result.repeat,
        "status": result.status,
        "text": text[:ANSWER_LIMIT],
        "cut": len(text) > ANSWER_LIMIT,
        "error": completion.error,
        "turn": turn,
        "tools": [call.describe()[:ANSWER_LIMIT] for call in completion.tool_calls],
        "grades": [
            {
                # A conversation's grades name their turn: "contains" twice says nothing.
                "name": (f"turn {n}: " if (n := grade.details.get(TURN)) else "") + grade.name,
                "passed": grade.passed,
                "tip": grade.description + ("" if grade.passed else f" — {grade.summary}"),
            }
            for grade in result.grades
        ],
        "reasons": result.reasons,
        "tags": result.tags,
        "must_pass": result.must_pass,
    }


def _cells(
    results: list[CaseResult], columns: list[dict[str, str]], run_id: str
) -> list[list[dict[str, Any]]]:
    index = {(c["model"], c["variant"]): i for i, c in enumerate(columns) if c["run"] == run_id}
    cells: list[list[dict[str, Any]]] = [[] for _ in columns]
    for result in results:
        at = index.get((result.model, result.variant or ""))
        if at is not None:
            cells[at].append(_entry(result))
    return cells


def matrix_json(store: RunStore, run_id: str, params: Any) -> dict[str, Any]:
    """One page of the matrix of `run_id` as the page's script reads it."""
    run_id = store.resolve(run_id)
    other = params.get("b") or None
    other_id = store.resolve(other) if other else None
    offset, limit = _number(params, "offset", 0), _number(params, "limit", PAGE)
    page = store.matrix(run_id, _filter(store, params), offset=offset, limit=limit, other=other_id)
    two = other_id is not None
    columns = [_column(run_id, m, v, two) for m, v in page.columns]
    if other_id is not None:
        columns += [_column(other_id, m, v, two) for m, v in page.other_columns]
    rows = [_row(case, columns, run_id, other_id) for case in page.cases]
    return {"run": run_id, "total": page.total, "offset": offset, "columns": columns, "rows": rows}


def _parts(results: list[CaseResult]) -> list[dict[str, str]]:
    """The case's content parts as its row shows them: an image's thumbnail, else its name.

    Every result of a case sent the same parts, so the first result's messages hold them.
    """
    messages = results[0].messages if results else []
    views = [view for message in messages for view in part_views(message.parts)]
    return [{"kind": view.kind, "name": view.name, "src": view.src} for view in views]


def _row(
    case: MatrixCase, columns: list[dict[str, str]], run_id: str, other_id: str | None
) -> dict[str, Any]:
    """One case's row: its cells in every column, of this run and of the other run if any."""
    mine = _cells(case.results, columns, run_id)
    theirs = _cells(case.other, columns, other_id) if other_id is not None else []
    return {
        "suite": case.suite,
        "case": case.case_id,
        "key": f"{case.suite}/{case.case_id}" if case.suite else case.case_id,
        "parts": _parts(case.results or case.other),
        "cells": [a or b for a, b in zip(mine, theirs or mine, strict=True)],
    }


def _pick(results: list[CaseResult], model: str, variant: str, repeat: int) -> CaseResult:
    for result in results:
        if result.model == model and (result.variant or "") == variant and result.repeat == repeat:
            return result
    raise ConfigError(f"no result of model {model!r}, variant {variant!r}, repeat {repeat}")


def diff_json(store: RunStore, params: Any) -> dict[str, Any]:
    """The word diff of one case's answer: (run_a, model_a, variant_a) → (run_b, ...)."""
    suite, case_id = params.get("suite", ""), params.get("case", "")
    if not case_id:
        raise ConfigError("name the case to diff (parameter case)")
    repeat = _number(params, "repeat", 1)
    sides = []
    for side in ("a", "b"):
        run = store.resolve(params.get(f"run_{side}") or params.get("run_a") or "")
        page = store.matrix(run, MatrixFilter(suite=suite, case_id=case_id), limit=1)
        if not page.cases:
            raise ConfigError(f"run {run} has no case {case_id!r} in suite {suite!r}")
        model = params.get(f"model_{side}", "")
        variant = params.get(f"variant_{side}", "")
        result = _pick(page.cases[0].results, model, variant, repeat)
        sides.append(result.completion.text or result.completion.error or "")
    return {"ops": word_diff(sides[0], sides[1])}


def matrix_page(store: RunStore, request: Request) -> Response:
    """``/runs/{run_id}/matrix``: the page's shell; ``?b=RUN`` names a run to diff with."""
    run_id = store.resolve(request.path_params["run_id"])
    other = request.query_params.get("b") or ""
    summary = store.summary(run_id)
    suites, tags = store.facets(run_id)
    runs = [r.run_id for r in store.list_runs(limit=200) if r.run_id != run_id]
    return workbench_page(
        "matrix.html.j2",
        script="matrix.js",
        run=summary,
        other=store.resolve(other) if other else "",
        suites=suites,
        tags=tags,
        runs=runs,
    )


def matrix_api(store: RunStore, request: Request) -> Response:
    """``/api/runs/{run_id}/matrix``: one page of the matrix as JSON (`matrix_json`)."""
    params = request.query_params
    return _answer(lambda: matrix_json(store, request.path_params["run_id"], params))


def diff_api(store: RunStore, request: Request) -> Response:
    """``/api/diff``: a word-level diff of one case's answers as JSON (`diff_json`)."""
    return _answer(lambda: diff_json(store, request.query_params))


def _answer(make: Callable[[], dict[str, Any]]) -> Response:
    from starlette.responses import JSONResponse

    # The page's script reads the reason from JSON, not from an HTML error page.
    try:
        return JSONResponse(make(), headers=HEADERS)
    except StoreError as exc:
        return JSONResponse({"error": str(exc)}, status_code=404, headers=HEADERS)
    except ConfigError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400, headers=HEADERS)


def matrix_routes(store: RunStore) -> list[Route]:
    """The matrix page and its JSON API on `store`, for `create_app`."""
    from starlette.routing import Route

    return [
        Route("/runs/{run_id}/matrix", partial(matrix_page, store)),
        Route("/api/runs/{run_id}/matrix", partial(matrix_api, store)),
        Route("/api/diff", partial(diff_api, store)),
    ]
