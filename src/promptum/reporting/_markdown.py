"""Markdown: a short summary for a pull-request comment, per-model table and the failures."""

from __future__ import annotations

import itertools
from typing import TextIO

from promptum.gate import decide
from promptum.reporting import _format as fmt
from promptum.reporting._asr import detector_corrections
from promptum.reporting._asr import markdown_lines as asr_lines
from promptum.reporting._leads import leads as variant_leads
from promptum.reporting._metrics import markdown_lines
from promptum.reporting._source import ReportSource, rendered
from promptum.reporting._text import inline_markdown as md
from promptum.reporting._text import shorten
from promptum.values.run_result import CaseResult, ModelStats, RunResult
from promptum.values.stats import total_spent

MAX_FAILURES = 50
"""Failures listed before the rest are only counted: a PR comment must stay readable."""
_MAX_REASON = 300
_EXCERPT = 120
"""Characters of a conversation's failing turn (the user's message, the reply) shown."""


def _model_table(stats_by_model: dict[str, ModelStats]) -> list[str]:
    lines = [
        "| Model | Pass rate | Passed | Failed | Errors | Checks | Assertions "
        "| Judge mean | p50 latency | Cost |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for stats in stats_by_model.values():
        lines.append(
            f"| {md(stats.column)} | {fmt.percent(stats.pass_rate)} | {stats.passed} "
            f"| {stats.failed} | {stats.errors} | {stats.checks_passed}/{stats.checks_total} "
            f"| {stats.assertions_passed}/{stats.assertions_total} | {fmt.score(stats.judge_mean)} "
            f"| {fmt.milliseconds(stats.latency_p50_ms)} | {fmt.cost(stats.spent)} |"
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
    number = result.failing_turn
    if number is not None and result.turns:
        turn = result.turns[number - 1]
        error, reply = turn.completion.error, turn.completion.text
        said = f"error: {md(error, _EXCERPT)}" if error else f"reply: {md(reply, _EXCERPT)}"
        text += f" — turn {number}: user: {md(turn.query, _EXCERPT)}; {said}"
    return f"- {icon} **{md(result.key)}**{repeat} on {md(result.column)}: {text}"


def write_markdown(source: ReportSource, out: TextIO) -> None:
    """Write the run as a Markdown summary."""
    run = source.run
    tally = run.tally()
    total = tally.count
    gate = decide(run)
    icon = "✅" if gate.passed else "❌"
    title = md(run.suite) if run.suite else "promptum run"
    heading = f"## {icon} {title}: {tally.passed} of {total} passed"
    lines = [heading, ""]
    if not run.complete:
        planned = run.planned_results
        if planned is not None:
            # The heading is what a pull request's check list shows: it says what did not run.
            lines[0] = f"{heading}, {planned - total} of {planned} not run"
            said = f"interrupted before every case finished; {total} of {planned} results kept."
        else:  # results alone (a JSONL file), or a run that recorded no plan
            lines[0] = f"{heading} (incomplete)"
            said = f"not every case is known to have finished; {total} results kept."
        lines += [f"> **Incomplete run**: {said}", ""]
    stats = tally.stats()
    cost = total_spent(stats.values())
    cached, answered = tally.cached, tally.answered
    from_cache = f" · {cached} of {answered} answers from the cache" if cached else ""
    lines += [
        f"**{md(gate.line)}**",
        "",
        f"Run {md(run.run_id)} · {fmt.timestamp(run.started_at)} · "
        f"{fmt.seconds(run.duration_s)} · cost {fmt.cost(cost)}{from_cache}",
        "",
        *_model_table(stats),
        *markdown_lines(tally.metric_figures()),
    ]
    leads = variant_leads(source)
    rates = tally.asr()
    lines += asr_lines(rates, leads, detector_corrections(rates, source))
    if leads:
        lines += ["", *(f"- {md(lead.line)}" for lead in leads)]
    flaky = tally.flaky()
    if flaky:
        lines += ["", f"### Flaky cases ({len(flaky)})", ""]
        lines += [
            f"- 🔀 **{md(f.case_id)}** on {md(f.model)}: passed {f.passed} of {f.total} repeats"
            for f in flaky
        ]
    failures = total - tally.passed
    if failures:
        lines += ["", f"### Failures ({failures})", ""]
        failed = (r for r in source.results() if r.status != "pass")
        lines += [_failure(r, tally.repeated) for r in itertools.islice(failed, MAX_FAILURES)]
        if failures > MAX_FAILURES:
            lines += ["", f"…and {failures - MAX_FAILURES} more; see the full report."]
    out.write("\n".join(lines) + "\n")


def render_markdown(run: RunResult) -> str:
    """The run as a Markdown summary."""
    return rendered(write_markdown, run)
