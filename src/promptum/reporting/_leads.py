"""The prompt variants' leads a report shows: each model's best variant against the runner-up.

Apart from `ReportSource` so that only the formats that show them (HTML, Markdown) import
the comparison figures: ``-o r.json`` does not.
"""

from __future__ import annotations

from promptum.comparison_figures import VariantLead, variant_leads
from promptum.reporting._source import ReportSource
from promptum.values.asr import REDTEAM_TAG
from promptum.values.completion import Completion
from promptum.values.run_result import CaseResult

_BLANK = Completion()
"""The completion of a result kept only to pair prompt variants: its text is not needed."""

_PAIRED_BY = ("case_id", "suite", "model", "variant", "repeat", "status", "must_pass", "tags")
"""What pairing prompt variants reads of a result (its tags: a red-team case's goal)."""


def leads(source: ReportSource) -> list[VariantLead]:
    """For each model that ran two or more prompt variants: its best against the runner-up."""
    run = source.run
    if run.results or all(c in run.models for c in run.tally().columns()):
        return variant_leads(run)
    # A streamed run with prompt variants: pairing them needs each variant result's case
    # and status, a small record each (not bounded, but a fraction of the results).
    slim = run.model_copy(update={"results": [_slim(r) for r in source.results() if r.variant]})
    slim.streamed(run.tally())
    return variant_leads(slim)


def _slim(result: CaseResult) -> CaseResult:
    return CaseResult.model_construct(
        **{name: getattr(result, name) for name in _PAIRED_BY},
        # An attack's verdict is its detector's grade: kept for attacks alone.
        grades=result.grades if REDTEAM_TAG in result.tags else [],
        completion=_BLANK,
    )
