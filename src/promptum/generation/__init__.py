"""Generating cases, and checks for the cases a judge alone grades.

A generator model writes new cases from a suite and its documents; a judge-only case gets
the deterministic checks its expected behaviour states outright.

An engine: it is handed the application (`Brief`), how to ask the generator (`Ask`) and how
to embed texts (`Embed`); the suites, the providers and the embedded model are wired in by
the `promptum generate` command.
"""

from promptum.generation._aims import EVOLUTIONS, Aim
from promptum.generation._brief import Brief
from promptum.generation._cases import GENERATED_TAG
from promptum.generation._checks import proposed_checks, proposed_expected
from promptum.generation._coverage import coverage, kinds
from promptum.generation._documents import Passage, passages_of, read_documents
from promptum.generation._errors import GenerationError
from promptum.generation._generate import RETRIES, Ask, Generation, generate_cases
from promptum.generation._near import SIMILARITY, Embed, NearDuplicates

__all__ = [
    "EVOLUTIONS",
    "GENERATED_TAG",
    "RETRIES",
    "SIMILARITY",
    "Aim",
    "Ask",
    "Brief",
    "Embed",
    "Generation",
    "GenerationError",
    "NearDuplicates",
    "Passage",
    "coverage",
    "generate_cases",
    "kinds",
    "passages_of",
    "proposed_checks",
    "proposed_expected",
    "read_documents",
]
