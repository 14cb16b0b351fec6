"""Comparing runs and models: pass-rate deltas with 95% intervals, paired tests, the gate."""

from promptum.compare._compare import (
    CaseChange,
    Comparison,
    ModelComparison,
    Side,
    compare_models,
    compare_runs,
)
from promptum.compare._gate import DEFAULT_MAX_REGRESSED, comparison_gate
from promptum.compare._html import comparison_html, render_page
from promptum.compare._markdown import comparison_markdown
from promptum.compare._stats import (
    ALPHA,
    Interval,
    paired_interval,
    sign_test,
    wilson_interval,
)
from promptum.compare._text import figure_rows, verdict_line
from promptum.compare._variants import (
    VariantLead,
    prompt_changes,
    variant_leads,
    variant_pairs,
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
    "paired_interval",
    "prompt_changes",
    "render_page",
    "sign_test",
    "variant_leads",
    "variant_pairs",
    "verdict_line",
    "wilson_interval",
]
