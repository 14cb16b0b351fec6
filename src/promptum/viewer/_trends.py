"""Trends over the run history: pass rate, judge mean, cost and latency p95 per suite × model.

Drawn server-side as SVG (no script, no library); the significant changes `compare` finds
between consecutive runs of a suite are marked on the pass-rate chart.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from promptum.compare import compare_runs
from promptum.errors import ConfigError
from promptum.store import RunFigures, RunStore
from promptum.viewer._pages import workbench_page

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from promptum.values.run_result import RunResult

COMPARE_LIMIT = 10_000
"""Runs with more results than this are not compared (each would be loaded whole)."""
COMPARE_BUDGET = 40_000
"""Results one page view loads at most to compare runs (about 1.5 s): the newest pairs first,
older ones on a later view (each finished pair is compared once while the viewer runs)."""
WIDTH, HEIGHT, PAD = 640, 170, 36
PALETTE = ("#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df", "#cf222e", "#57606a")


@dataclass(frozen=True)
class Metric:
    """A figure drawn for every point: its name, how it is read, its unit."""

    name: str
    value: Callable[[RunFigures], float | None]
    text: Callable[[float], str]
    fixed_top: float | None = None


METRICS = (
    Metric("pass rate", lambda f: f.passed / f.total if f.total else None, "{:.0%}".format, 1.0),
    Metric("judge mean", lambda f: f.judge_mean, "{:.2f}".format, 1.0),
    Metric("cost (USD)", lambda f: f.cost_usd, "${:.4f}".format),
    Metric("latency p95 (ms)", lambda f: f.latency_p95, "{:.0f} ms".format),
)


@dataclass
class Chart:
    """One metric of one suite as SVG shapes: a line per model, marks on changes."""

    title: str
    top: str
    lines: list[dict[str, object]] = field(default_factory=list)
    marks: list[dict[str, object]] = field(default_factory=list)


@dataclass
class Budget:
    """What one page view may still load to compare runs, and the runs it put off."""

    left: int = COMPARE_BUDGET
    put_off: list[str] = field(default_factory=list)


Marks = dict[tuple[str, str], tuple[str, str]]
"""(run id, model) -> (verdict, why) for each significant change from the run before."""


def _changes(
    store: RunStore,
    runs: list[RunFigures],
    memo: dict[tuple[str, str], Marks],
    budget: Budget | None = None,
) -> Marks:
    """The significant changes between consecutive runs, each pair of finished runs once.

    Loads at most `budget.left` results, the newest pairs first; the runs whose comparison
    with the run before did not fit are added to `budget.put_off`.
    """
    budget = budget if budget is not None else Budget()
    order = list(dict.fromkeys(f.run_id for f in runs))
    sizes = {f.run_id: 0 for f in runs}
    finished = {f.run_id: f.finished for f in runs}
    for f in runs:
        sizes[f.run_id] += f.total
    marked: Marks = {}
    loaded: dict[str, RunResult] = {}
    for before_id, after_id in reversed(list(itertools.pairwise(order))):
        if (before_id, after_id) in memo:
            marked.update(memo[before_id, after_id])
            continue
        if max(sizes[before_id], sizes[after_id]) > COMPARE_LIMIT:
            continue
        # Newest first: the run loaded as `before` is the next pair's `after`.
        cost = sizes[before_id] + (0 if after_id in loaded else sizes[after_id])
        if cost > budget.left:
            budget.put_off.append(after_id)
            continue
        budget.left -= cost
        after = loaded.pop(after_id, None) or store.load(after_id)
        before = loaded[before_id] = store.load(before_id)
        found = _significant(before, after, before_id, after_id)
        if finished[before_id] and finished[after_id]:
            memo[before_id, after_id] = found  # finished runs do not change
        marked.update(found)
    return marked


def _significant(before: RunResult, after: RunResult, before_id: str, after_id: str) -> Marks:
    """Each model's significant change from run `before` to run `after`, marked at `after`."""
    try:
        pairs = compare_runs(before, after).models
    except ConfigError:
        return {}  # no model in common: nothing to compare
    return {
        (after_id, pair.b.model): (
            pair.verdict,
            f"{pair.verdict} against {before_id}: pass rate "
            f"{pair.delta:+.0%}, p={pair.p_value:.3g}",
        )
        for pair in pairs
        if pair.verdict != "no significant change"
    }


def _x(index: int, count: int) -> float:
    span = WIDTH - 2 * PAD
    return PAD + (span * index / (count - 1) if count > 1 else span / 2)


def _suite_charts(runs: list[RunFigures], changes: Marks) -> list[Chart]:
    """The four charts of one suite's runs (oldest first); changes marked on the first."""
    order = list(dict.fromkeys(f.run_id for f in runs))
    models = list(dict.fromkeys(f.model for f in runs))
    return [
        _chart(metric, runs, order, models, changes if metric is METRICS[0] else {})
        for metric in METRICS
    ]


def _chart(
    metric: Metric, runs: list[RunFigures], order: list[str], models: list[str], changes: Marks
) -> Chart:
    """One metric's chart: a line per model over the runs in `order`, `changes` marked."""
    values = [v for f in runs if (v := metric.value(f)) is not None]
    top = metric.fixed_top or max(values, default=0.0) or 1.0
    chart = Chart(metric.name, metric.text(top))
    for number, model in enumerate(models):
        points = []
        for f in runs:
            value = metric.value(f)
            if f.model != model or value is None:
                continue
            x = _x(order.index(f.run_id), len(order))
            y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * min(value / top, 1.0)
            label = f"{model} @ {f.run_id} ({f.started_at:%Y-%m-%d %H:%M}): "
            points.append({"x": x, "y": y, "label": label + metric.text(value)})
            change = changes.get((f.run_id, model))
            if change is not None:
                chart.marks.append({"x": x, "y": y, "kind": change[0], "label": change[1]})
        chart.lines.append(
            {
                "model": model,
                "color": PALETTE[number % len(PALETTE)],
                "points": points,
                "path": " ".join(f"{p['x']:.1f},{p['y']:.1f}" for p in points),
            }
        )
    return chart


def trends_page(store: RunStore, memo: dict[tuple[str, str], Marks], request: Request) -> Response:
    """``/trends``: each suite's charts over its runs, filtered by ``?suite=`` and ``?model=``.

    `memo` keeps the changes found between two finished runs, so each pair is compared once.
    """
    suite = request.query_params.get("suite", "")
    model = request.query_params.get("model", "")
    figures = store.figures(suite=suite, model=model)
    suites: dict[str, list[RunFigures]] = {}
    for f in figures:
        suites.setdefault(f.suite, []).append(f)
    budget, sections = Budget(), []
    for name, runs in suites.items():
        already = len(budget.put_off)
        changes = _changes(store, runs, memo, budget)
        put_off = budget.put_off[already:]
        sections.append(
            {
                "suite": name,
                "runs": list(dict.fromkeys(f.run_id for f in runs)),
                "charts": _suite_charts(runs, changes),
                "put_off": put_off,
            }
        )
    every = store.list_runs(limit=500)
    return workbench_page(
        "trends.html.j2",
        sections=sections,
        suite=suite,
        model=model,
        all_suites=sorted({r.suite for r in every}),
        all_models=sorted({m for r in every for m in r.models}),
        width=WIDTH,
        height=HEIGHT,
        pad=PAD,
    )


def trends_routes(store: RunStore) -> list[Route]:
    """The trends page on `store`, for `create_app`."""
    from starlette.routing import Route

    # Comparing two runs loads both whole: each pair of finished runs is compared once.
    memo: dict[tuple[str, str], Marks] = {}
    return [Route("/trends", partial(trends_page, store, memo))]
