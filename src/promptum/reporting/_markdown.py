"""Markdown: a short summary for a pull-request comment, per-model table and the failures."""

from __future__ import annotations

from promptum.gate import decide
from promptum.rates import flaky_cases
from promptum.reporting import _format as fmt
from promptum.reporting._text import inline_markdown as md
from promptum.reporting._text import shorten
from promptum.results import CaseResult, ModelStats, RunResult

MAX_FAILURES = 50
"""Failures listed before the rest are only counted: a PR comment must stay readable."""
_MAX_REASON = 300


def _model_table(stats_by_model: dict[str, ModelStats]) -> list[str]:
    lines = [
        "| Model | Pass rate | Passed | Failed | Errors | Checks | Assertions "
        "| Judge mean | p50 latency | Cost |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for stats in stats_by_model.values():
        lines.append(
            f"| {md(stats.model)} | {fmt.percent(stats.pass_rate)} | {stats.passed} "
            f"| {stats.failed} | {stats.errors} | {stats.checks_passed}/{stats.checks_total} "
            f"| {stats.assertions_passed}/{stats.assertions_total} | {fmt.score(stats.judge_mean)} "
            f"| {fmt.milliseconds(stats.latency_p50_ms)} | {fmt.cost(stats.cost_usd)} |"
        )
    return lines


def _failure(result: CaseResult, repeated: bool) -> str:
    reasons = result.reasons or [f"status {result.status}"]
    text = "; ".join(md(shorten(reason, _MAX_REASON)) for reason in reasons)
    repeat = f" (repeat {result.repeat})" if repeated else ""
    icon = "⚠️" if result.status == "error" else "❌"
    calls = result.completion.tool_calls
    if calls:
        made = ", ".join(shorten(call.describe(), _MAX_REASON) for call in calls)
        text += f" (tool calls: {md(made)})"
    return f"- {icon} **{md(result.key)}**{repeat} on {md(result.column)}: {text}"


def render_markdown(run: RunResult) -> str:
    """The run as a Markdown summary."""
    total = len(run.results)
    passed = sum(r.status == "pass" for r in run.results)
    gate = decide(run)
    icon = "✅" if gate.passed else "❌"
    title = md(run.suite) if run.suite else "promptum run"
    lines = [f"## {icon} {title}: {passed} of {total} passed", ""]
    if not run.complete:
        planned = fmt.planned(run)
        kept = f"{total} of {planned}" if planned is not None else str(total)
        lines += [
            f"> **Incomplete run**: interrupted before every case finished; {kept} results kept.",
            "",
        ]
    stats = run.stats()
    cost = sum(s.cost_usd for s in stats.values())
    cached, answered = run.cache_counts()
    from_cache = f" · {cached} of {answered} answers from the cache" if cached else ""
    lines += [
        f"**{md(gate.line)}**",
        "",
        f"Run {md(run.run_id)} · {fmt.timestamp(run.started_at)} · "
        f"{fmt.seconds(run.duration_s)} · cost {fmt.cost(cost)}{from_cache}",
        "",
        *_model_table(stats),
    ]
    from promptum.compare import variant_leads

    leads = variant_leads(run)
    if leads:
        lines += ["", *(f"- {md(lead.line)}" for lead in leads)]
    flaky = flaky_cases(run)
    if flaky:
        lines += ["", f"### Flaky cases ({len(flaky)})", ""]
        lines += [
            f"- 🔀 **{md(f.case_id)}** on {md(f.model)}: passed {f.passed} of {f.total} repeats"
            for f in flaky
        ]
    failures = [r for r in run.results if r.status != "pass"]
    if failures:
        lines += ["", f"### Failures ({len(failures)})", ""]
        repeated = any(r.repeat > 1 for r in run.results)
        lines += [_failure(r, repeated) for r in failures[:MAX_FAILURES]]
        if len(failures) > MAX_FAILURES:
            lines += ["", f"…and {len(failures) - MAX_FAILURES} more; see the full report."]
    return "\n".join(lines) + "\n"
