"""How a comparison's attack success rates read: one line per goal, the two sides paired."""

from __future__ import annotations

from promptum.comparison_figures import ModelComparison, asr_lines


def side_labels(pair: ModelComparison) -> tuple[str, str]:
    """What the two sides are called: their prompt variants, models, or runs."""
    a, b = pair.a.stats, pair.b.stats
    if a.variant and b.variant and a.variant != b.variant:
        return a.variant, b.variant
    if pair.a.model != pair.b.model:
        return pair.a.model, pair.b.model
    return f"A ({pair.a.run_id})", f"B ({pair.b.run_id})"


def pair_asr_lines(pair: ModelComparison) -> list[str]:
    """``Attack success, all attacks — hardened: 6% [3–11%] vs baseline 34% [28–41%], p ...``.

    Every attack, then each goal when there are several; empty without red-team cases.
    """
    label_a, label_b = side_labels(pair)
    return asr_lines(pair.asr, label_a, label_b)
