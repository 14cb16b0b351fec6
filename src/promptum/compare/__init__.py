"""Comparing runs and models: pass-rate deltas with 95% intervals, paired tests, the gate."""

from promptum.compare._asr import pair_asr_lines
from promptum.compare._gate import DEFAULT_MAX_REGRESSED, comparison_gate
from promptum.compare._html import comparison_html, render_page
from promptum.compare._markdown import comparison_markdown
from promptum.compare._text import figure_rows, verdict_line
from promptum.comparison_figures import (
    ALPHA,
    CaseChange,
    Comparison,
    Interval,
    ModelComparison,
    Side,
    VariantLead,
    compare_models,
    compare_runs,
    paired_interval,
    prompt_changes,
    sign_test,
    variant_leads,
    variant_pairs,
    wilson_interval,
)
from promptum.rates import CaseRate, case_rates, flaky_cases

__all__ = [
    "ALPHA",
    "DEFAULT_MAX_REGRESSED",
    "CaseChange",
    "CaseRate",
    "Comparison",
    "Interval",
    "ModelComparison",
    "Side",
    "VariantLead",
    "case_rates",
    "compare_models",
    "compare_runs",
    "comparison_gate",
    "comparison_html",
    "comparison_markdown",
    "figure_rows",
    "flaky_cases",
    "pair_asr_lines",
    "paired_interval",
    "prompt_changes",
    "render_page",
    "sign_test",
    "variant_leads",
    "variant_pairs",
    "verdict_line",
    "wilson_interval",
]
