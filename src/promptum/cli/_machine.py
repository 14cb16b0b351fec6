"""The ``--json`` output of `runs list`, `runs show`, `compare` and `models`: documented shapes.

The shapes are in docs/history.md and docs/models.md. Keys are stable: a later version may
add keys, never rename or drop one. Times are ISO 8601 with their zone, rates fractions in
0-1, latency milliseconds rounded to 0.1 and cost dollars rounded to 1e-9, as in the
reports; scores and statistics are as computed.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import click

from promptum.values.reviews import result_key

if TYPE_CHECKING:
    from promptum.compare import CaseChange, Comparison, ModelComparison, Side
    from promptum.gate import GateDecision
    from promptum.providers import ProviderStatus
    from promptum.rates import CaseRate
    from promptum.store import RunSummary
    from promptum.values.reviews import ReviewMap
    from promptum.values.run_result import CaseResult, ModelStats, RunResult

# Valid JSON keeps these raw inside strings; written as escapes they cannot reach a terminal
# as controls (DEL, C1) or break the UTF-8 encoding of stdout (lone surrogates from a JSON
# API's `\ud800` escape), and they still decode to the same string.
_UNPRINTABLE = re.compile("[\x7f-\x9f\ud800-\udfff]")


def print_json(data: Any) -> None:
    """Print `data` as indented JSON on stdout."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    click.echo(_UNPRINTABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text))


def run_summary(summary: RunSummary) -> dict[str, Any]:
    """One run as `runs list --json` lists it."""
    return {
        "run_id": summary.run_id,
        "suite": summary.suite,
        "models": summary.models,
        "started_at": summary.started_at.isoformat(),
        "finished_at": None if summary.finished_at is None else summary.finished_at.isoformat(),
        "state": summary.state,
        "total": summary.total,
        "passed": summary.passed,
        "failed": summary.failed,
        "errors": summary.errors,
        "pass_rate": summary.pass_rate,
        "git_commit": summary.git_commit,
        "git_dirty": summary.git_dirty,
        "promptum_version": summary.promptum_version,
    }


def _column(stats: ModelStats) -> dict[str, Any]:
    """Which results figures are of: the model and the variant apart, and the column as shown."""
    return {"model": stats.model, "variant": stats.variant, "column": stats.column}


def model_stats(stats: ModelStats) -> dict[str, Any]:
    """One model's (or model and variant's) figures in a run."""
    from promptum.reporting import cost_usd, latency_ms

    return {
        **_column(stats),
        "total": stats.total,
        "passed": stats.passed,
        "failed": stats.failed,
        "errors": stats.errors,
        "pass_rate": stats.pass_rate,
        "checks_passed": stats.checks_passed,
        "checks_total": stats.checks_total,
        "assertions_passed": stats.assertions_passed,
        "assertions_total": stats.assertions_total,
        "judge_mean": stats.judge_mean,
        "latency_p50_ms": latency_ms(stats.latency_p50_ms),
        "latency_p95_ms": latency_ms(stats.latency_p95_ms),
        "input_tokens": stats.input_tokens,
        "output_tokens": stats.output_tokens,
        "cost_usd": cost_usd(stats.spent),
        "cached_cost_usd": cost_usd(stats.cached_cost_usd),
    }


def _gate(decision: GateDecision) -> dict[str, Any]:
    return {"passed": decision.passed, "reason": decision.reason, "line": decision.line}


def _rate(rate: CaseRate) -> dict[str, Any]:
    return {"outcome": rate.outcome, "passed": rate.passed, "total": rate.total}


def _conversation(result: CaseResult) -> dict[str, Any]:
    """A conversation's turns and first failing turn (null: a grade over all of it failed)."""
    if result.turns is None:
        return {}
    return {"turns": len(result.turns), "failing_turn": result.failing_turn}


def run_details(
    summary: RunSummary, run: RunResult, reviews: ReviewMap | None = None
) -> dict[str, Any]:
    """One run as `runs show --json` shows it: its facts, figures, failures and gate.

    With `reviews` (people's, by result), a failure that has any lists them, and
    ``reviewed`` lists every reviewed result; both keys are absent for a run without.
    """
    from promptum.gate import decide
    from promptum.rates import flaky_cases

    duration = run.duration_s
    stats = run.stats()
    details = {
        **run_summary(summary),
        "duration_s": None if duration is None else round(duration, 3),
        "stats": [model_stats(column) for column in stats.values()],
        "failures": [
            {
                "case_id": result.key,
                "model": result.model,
                "variant": result.variant,
                "repeat": result.repeat,
                "status": result.status,
                "must_pass": result.must_pass,
                "source": result.source,
                "reasons": result.reasons,
                **_conversation(result),
                **_reviews(result, reviews),
            }
            for result in run.results
            if result.status != "pass"
        ],
        "flaky": [
            {
                "case_id": rate.case_id,
                **_column(stats[rate.model]),  # a rate's `model` is its column
                "passed": rate.passed,
                "total": rate.total,
            }
            for rate in flaky_cases(run)
        ],
        "gate": _gate(decide(run)),
        **_metrics(run),
        **_asr(run, reviews),
    }
    if reviews:
        details["reviewed"] = [
            {
                "case_id": result.key,
                "model": result.model,
                "variant": result.variant,
                "repeat": result.repeat,
                "status": result.status,
                **_reviews(result, reviews),
            }
            for result in run.results
            if result_key(result) in reviews
        ]
    return details


def _reviews(result: CaseResult, reviews: ReviewMap | None) -> dict[str, Any]:
    """``{"reviews": [...]}`` for a result people reviewed, else nothing."""
    found = (reviews or {}).get(result_key(result))
    return {"reviews": [review.brief() for review in found]} if found else {}


def _asr(run: RunResult, reviews: ReviewMap | None) -> dict[str, Any]:
    """The ``asr`` entry (docs/redteam.md), only for a run with red-team cases.

    Each goal's rate is corrected for its detector's errors, by people's reviews where
    there are enough, as in the JSON report.
    """
    from promptum.redteam.corrected_rates import corrections
    from promptum.redteam.detector_quality import reviewed_qualities

    rates = run.tally().asr()
    if not rates:
        return {}
    fixes = corrections(rates, reviewed_qualities(run.results, reviews or {}))
    return {"asr": rates.as_json(lambda goal, counts: fixes[goal].as_json(counts))}


def _asr_changes(pair: ModelComparison) -> dict[str, Any]:
    """A pair's attack success rates side by side, only when it has red-team cases."""
    if not pair.asr:
        return {}
    return {
        "asr": [
            {
                "goal": change.goal,
                "a": change.a.as_json(),
                "b": change.b.as_json(),
                "shared": change.shared,
                "rose": change.rose,
                "fell": change.fell,
                "p_value": change.p_value,
            }
            for change in pair.asr
        ]
    }


def _metrics(run: RunResult) -> dict[str, Any]:
    """The run's per-metric figures (docs/metrics.md), only when a grade has a metric."""
    from promptum.values.metrics import figures_json

    figures = run.tally().metric_figures()
    return {"metrics": figures_json(figures)} if figures else {}


def _side(side: Side) -> dict[str, Any]:
    return {
        "run_id": side.run_id,
        **_column(side.stats),
        "pass_rate_interval": [side.interval.low, side.interval.high],
        "stats": model_stats(side.stats),
        "flaky": [{"case_id": rate.case_id, **_rate(rate)} for rate in side.flaky],
    }


def _change(change: CaseChange, must_pass: frozenset[str]) -> dict[str, Any]:
    return {
        "case_id": change.case_id,
        "before": _rate(change.before),
        "after": _rate(change.after),
        "must_pass": change.case_id in must_pass,
    }


def _pair(pair: ModelComparison) -> dict[str, Any]:
    from promptum.reporting import cost_usd, latency_ms

    return {
        "name": pair.name,
        "a": _side(pair.a),
        "b": _side(pair.b),
        "shared": pair.shared,
        "delta": pair.delta,
        "delta_interval": [pair.interval.low, pair.interval.high],
        "p_value": pair.p_value,
        "significant": pair.significant,
        "verdict": pair.verdict,
        "rose": pair.rose,
        "fell": pair.fell,
        **{
            kind: [_change(change, pair.must_pass) for change in pair.of_kind(kind)]
            for kind in ("regressed", "fixed", "changed")
        },
        "only_a": pair.only_a,
        "only_b": pair.only_b,
        "must_pass": sorted(pair.must_pass),
        "judge_delta": pair.judge_delta,
        "latency_p50_delta_ms": latency_ms(pair.latency_delta_ms),
        "cost_delta_usd": cost_usd(pair.cost_delta_usd),
        **_asr_changes(pair),
    }


def comparison(
    compared: Comparison, gate: GateDecision | None, max_regressed: int | None
) -> dict[str, Any]:
    """A comparison as `compare --json` prints it, with the gate's decision when gated."""
    from promptum.compare import prompt_changes

    return {
        "a": {"run_id": compared.run_a.run_id, "suite": compared.run_a.suite},
        "b": {"run_id": compared.run_b.run_id, "suite": compared.run_b.suite},
        "pairs": [_pair(pair) for pair in compared.models],
        "not_compared": {
            "a": [_column(stats) for stats in compared.unpaired_a],
            "b": [_column(stats) for stats in compared.unpaired_b],
        },
        "prompt_changes": prompt_changes(compared.run_a, compared.run_b),
        "gate": None if gate is None else _gate(gate) | {"max_regressed": max_regressed},
    }


def providers(statuses: list[ProviderStatus]) -> dict[str, Any]:
    """`models --json`: every provider, whether it is ready here, and where calls go."""
    return {
        "providers": [
            {
                "prefix": status.prefix,
                "example": status.example,
                "ready": status.ready,
                "detail": status.detail,
            }
            for status in statuses
        ]
    }


def model_checks(problems: list[tuple[str, str | None]]) -> dict[str, Any]:
    """`models MODEL... --json`: whether each model id can be used here, and if not why."""
    return {
        "models": [
            {"model": model, "usable": problem is None, "problem": problem}
            for model, problem in problems
        ]
    }
