"""How a comparison's figures and texts read in the terminal, Markdown and HTML."""

from __future__ import annotations

from promptum.comparison_figures import Interval, ModelComparison
from promptum.reporting import inline_markdown


def markdown(text: str, limit: int | None = 120) -> str:
    """Text from a model or a suite as inert one-line Markdown, cut to `limit` characters."""
    return inline_markdown(text, limit)


def percent(fraction: float) -> str:
    """A fraction as a percentage."""
    return f"{fraction * 100:.1f}%"


def points(delta: float) -> str:
    """A difference of two rates, in signed percentage points."""
    return f"{delta * 100:+.1f} pp"


def interval(value: Interval, signed: bool = False) -> str:
    """A 95% interval, as rates or (signed) differences of rates."""
    if signed:
        return f"[{value.low * 100:+.1f}, {value.high * 100:+.1f}] pp"
    return f"[{value.low * 100:.1f}, {value.high * 100:.1f}]%"


def p_value(value: float) -> str:
    """A p-value, without false precision."""
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def signed(value: float | None, unit: str = "", digits: int = 2) -> str:
    """A signed difference, or a dash when one side lacks the figure."""
    return "–" if value is None else f"{value:+,.{digits}f}{unit}"


def money(delta: float) -> str:
    """A signed difference of dollars."""
    return f"{'-' if delta < 0 else '+'}${abs(delta):.4f}"


def figure_rows(pair: ModelComparison) -> list[tuple[str, str, str, str]]:
    """The figure rows of one pair: (figure, A, B, difference)."""
    a, b = pair.a.stats, pair.b.stats

    def ms(value: float | None) -> str:
        return "–" if value is None else f"{value:,.0f} ms"

    def score(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    return [
        (
            "Pass rate (95% CI)",
            f"{percent(a.pass_rate)} {interval(pair.a.interval)}",
            f"{percent(b.pass_rate)} {interval(pair.b.interval)}",
            f"{points(pair.delta)} {interval(pair.interval, signed=True)} on {pair.shared} shared",
        ),
        (
            "Passed",
            f"{a.passed}/{a.total}",
            f"{b.passed}/{b.total}",
            f"{pair.rose} cases rose, {pair.fell} fell",
        ),
        ("Errors", str(a.errors), str(b.errors), signed(b.errors - a.errors, digits=0)),
        ("Judge mean", score(a.judge_mean), score(b.judge_mean), signed(pair.judge_delta)),
        (
            "Latency p50",
            ms(a.latency_p50_ms),
            ms(b.latency_p50_ms),
            signed(pair.latency_delta_ms, " ms", 0),
        ),
        (
            "Cost",
            f"${a.cost_usd + a.cached_cost_usd:.4f}",
            f"${b.cost_usd + b.cached_cost_usd:.4f}",
            money(pair.cost_delta_usd),
        ),
        ("Flaky cases", str(len(pair.a.flaky)), str(len(pair.b.flaky)), ""),
    ]


def verdict_line(pair: ModelComparison) -> str:
    """The verdict with its evidence, for one line of text."""
    return (
        f"{pair.verdict} (paired sign test p={p_value(pair.p_value)}; "
        f"{pair.rose} cases rose, {pair.fell} fell)"
    )
