"""The figures of a comparison: pass-rate deltas with 95% intervals, paired tests, variant leads.

Values computed from runs, below `reporting` (which shows variant leads) and `compare`
(which renders comparisons and decides the gate); `promptum.compare` re-exports them all.
"""

from promptum.comparison_figures._asr import ALL_GOALS, AsrChange, asr_changes, asr_lines, p_text
from promptum.comparison_figures._compare import (
    CaseChange,
    Comparison,
    ModelComparison,
    Side,
    compare_models,
    compare_runs,
)
from promptum.comparison_figures._stats import (
    ALPHA,
    Interval,
    paired_interval,
    sign_test,
    wilson_interval,
)
from promptum.comparison_figures._variants import (
    VariantLead,
    prompt_changes,
    variant_leads,
    variant_pairs,
)

__all__ = [
    "ALL_GOALS",
    "ALPHA",
    "AsrChange",
    "CaseChange",
    "Comparison",
    "Interval",
    "ModelComparison",
    "Side",
    "VariantLead",
    "asr_changes",
    "asr_lines",
    "compare_models",
    "compare_runs",
    "p_text",
    "paired_interval",
    "prompt_changes",
    "sign_test",
    "variant_leads",
    "variant_pairs",
    "wilson_interval",
]
