"""The one error of case generation: nothing is written when it is raised."""

from __future__ import annotations

from promptum.errors import PromptumError


class GenerationError(PromptumError):
    """Cases cannot be generated: a document does not read, or the generator model fails."""
