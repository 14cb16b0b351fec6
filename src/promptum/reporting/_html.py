"""HTML: one self-contained page (inline CSS, JS and SVG) with a cases × models matrix.

Every string from a model or a suite reaches the page in one of two ways, both inert:
through jinja2 with autoescape, or inside the JSON data block (``tojson`` escapes ``<``,
``>``, ``&`` and ``'``), which the page's script only ever writes with ``textContent``.
A Content-Security-Policy allows no network and no script but the page's own (by hash),
so even a bug in that escaping could not run injected code or fetch anything.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Any

from promptum._legacy_grades import CHECK_KINDS
from promptum.gate import decide
from promptum.grades import samples_note
from promptum.rates import flaky_cases
from promptum.reporting import _format as fmt
from promptum.reporting._text import shorten, visible
from promptum.results import CaseResult, RunResult

if TYPE_CHECKING:
    import jinja2

_PREVIEW = 140
"""Characters of a response shown in its matrix cell; the rest is one click away."""
_REASON = 200
"""Characters of a reason shown in a cell; the full text is in the detail view."""


def _figures(result: CaseResult) -> str:
    completion = result.completion
    parts = []
    if completion.latency_ms is not None:
        parts.append(fmt.milliseconds(completion.latency_ms))
    if completion.input_tokens is not None or completion.output_tokens is not None:
        parts.append(f"{completion.input_tokens or 0}→{completion.output_tokens or 0} tok")
    if completion.cost_usd is not None:
        parts.append(fmt.cost(completion.cost_usd))
    if completion.attempts > 1:
        parts.append(f"{completion.attempts} attempts")
    return " · ".join(parts)


class _Data:
    """The JSON block the page's script reads: details, prompts and what filters need.

    Keys are one letter because a large run repeats them thousands of times. Per cell:
    ``s`` status, ``r`` response, ``p`` index into ``prompts``, ``f`` figures, and when
    present ``o`` parsed output, ``e`` error, ``x`` expected behaviour, ``j`` judge reason,
    ``w`` reasons it did not pass. Per row: ``t`` tags, ``c`` cell index per model or null.
    """

    def __init__(self) -> None:
        self.cells: list[dict[str, Any]] = []
        self.prompts: list[list[list[str]]] = []
        self._prompt_index: dict[str, int] = {}

    def _prompt(self, result: CaseResult) -> int:
        # Every model usually gets the same messages for a case: store each distinct prompt once.
        messages = [[m.role, visible(m.content)] for m in result.messages]
        key = json.dumps(messages)
        if key not in self._prompt_index:
            self._prompt_index[key] = len(self.prompts)
            self.prompts.append(messages)
        return self._prompt_index[key]

    def add(self, result: CaseResult, figures: str) -> int:
        """Record a result's details; returns its index for the page's script."""
        completion = result.completion
        cell: dict[str, Any] = {
            "f": figures,
            "s": result.status,
            "r": visible(fmt.with_tool_calls(completion)),
            "p": self._prompt(result),
        }
        optional = {
            "o": json.dumps(completion.output, indent=2, ensure_ascii=False, default=str)
            if completion.output is not None
            else None,
            "e": completion.error,
            "x": result.expected_behavior,
            "j": "; ".join(g.reason for g in result.of_kind("judge") if g.reason) or None,
            "w": result.reasons or None,
        }
        for key, value in optional.items():
            if isinstance(value, str):
                cell[key] = visible(value)
            elif value is not None:
                cell[key] = [visible(reason) for reason in value]
        self.cells.append(cell)
        return len(self.cells) - 1


@dataclass(frozen=True, slots=True)
class _Cell:
    result: CaseResult
    index: int
    """Where the cell's details are in the page's JSON data."""
    figures: str


@dataclass
class _Row:
    case_id: str
    repeat: int
    source: str | None
    cells: list[_Cell | None]
    tags: list[str] = field(default_factory=list)


def _rows(run: RunResult, models: list[str], data: _Data) -> list[_Row]:
    """One row per case and repeat, in the order the results first appear."""
    rows: dict[tuple[str, int], _Row] = {}
    column = {model: i for i, model in enumerate(models)}
    for result in run.results:
        key = (result.key, result.repeat)
        row = rows.get(key)
        if row is None:
            row = rows[key] = _Row(result.key, result.repeat, result.source, [None] * len(models))
        figures = _figures(result)
        row.cells[column[result.column]] = _Cell(result, data.add(result, figures), figures)
        row.tags += [visible(t) for t in result.tags if visible(t) not in row.tags]
    return list(rows.values())


@functools.cache
def template_asset(package: str, name: str) -> str:
    """A file from a package's ``templates`` folder (the report's CSS and JS, for instance)."""
    return resources.files(package).joinpath("templates", name).read_text("utf-8")


def _asset(name: str) -> str:
    return template_asset("promptum.reporting", name)


def csp_hash(text: str) -> str:
    """The Content-Security-Policy source that allows exactly this inline script or style."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def _finalize(value: Any) -> Any:
    """Applied by jinja2 to every ``{{ }}`` before escaping: control characters made visible."""
    if isinstance(value, str) and not hasattr(value, "__html__"):  # Markup is already safe
        return visible(value)
    return value


@functools.cache
def _environment() -> jinja2.Environment:
    """The template environment, built once: compiling the template outweighs a small render."""
    import jinja2  # Heavy; imported only when an HTML report is written.

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("promptum.reporting", "templates"),
        autoescape=True,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    # Compact, unsorted JSON keeps the data block small; tojson still escapes <, >, & and '.
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "separators": (",", ":")}
    env.filters.update(
        cost=fmt.cost,
        ms=fmt.milliseconds,
        percent=fmt.percent,
        score=fmt.score,
        short=shorten,
        samples=samples_note,
    )
    return env


def render_html(run: RunResult) -> str:
    """The run as one self-contained HTML page."""
    from markupsafe import Markup

    from promptum.compare import variant_leads

    models = list(run.by_model())
    data = _Data()
    rows = _rows(run, models, data)
    stats = run.stats()
    css, script = _asset("report.css"), _asset("report.js")
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            run=run,
            models=models,
            rows=rows,
            repeated=any(row.repeat > 1 for row in rows),
            stats=stats,
            flaky=flaky_cases(run),
            leads=[lead.line for lead in variant_leads(run)],
            gate=decide(run),
            check_kinds=sorted(CHECK_KINDS),
            tags=sorted({tag for row in rows for tag in row.tags}),
            total_cost=sum(s.cost_usd for s in stats.values()),
            cached_cost=sum(s.cached_cost_usd for s in stats.values()),
            planned=fmt.planned(run),
            started=fmt.timestamp(run.started_at),
            duration=fmt.seconds(run.duration_s),
            preview=_PREVIEW,
            reason_limit=_REASON,
            data={
                "cells": data.cells,
                "prompts": data.prompts,
                "rows": [
                    {"t": row.tags, "c": [None if c is None else c.index for c in row.cells]}
                    for row in rows
                ],
            },
            # The assets are the project's own files, inserted verbatim so their hashes match.
            css=Markup(css),
            script=Markup(script),
            csp=f"default-src 'none'; style-src {csp_hash(css)}; script-src {csp_hash(script)}",
        )
    )
