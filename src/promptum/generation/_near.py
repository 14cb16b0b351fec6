"""Near-duplicates: a generated query too close to an existing case or to one already kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from promptum.embeddings import cosine

Embed = Callable[[Sequence[str]], list[list[float]]]
"""Texts to unit vectors (the embedded MiniLM by default)."""
SIMILARITY = 0.9
"""The cosine above which two queries are the same case: MiniLM gives a paraphrase ~0.9 and
two questions on one subject ~0.6."""


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


EXISTING = "an existing case"
KEPT = "a generated case"


@dataclass(slots=True)
class NearDuplicates:
    """The queries seen so far, an existing case's or a kept one's, and which a new one repeats."""

    embed: Embed | None
    """None: only exact repeats (ignoring case and spacing) are found."""
    similarity: float = SIMILARITY
    _plains: dict[str, str] = field(default_factory=dict)
    """Each query seen, as compared (`_plain`), with whose it is."""
    _seen: list[tuple[str, list[float]]] = field(default_factory=list)
    """Each query's vector, with whose it is."""

    def add_existing(self, queries: Sequence[str]) -> None:
        """Take the suite's own queries, embedded in one call."""
        vectors = self.embed(list(queries)) if self.embed is not None and queries else []
        self._plains.update(dict.fromkeys(map(_plain, queries), EXISTING))
        self._seen += [(EXISTING, vector) for vector in vectors]

    def repeated(self, query: str) -> tuple[str | None, list[float] | None]:
        """Whose query `query` repeats (None: no one's), and its vector to `keep` it with."""
        exact = self._plains.get(_plain(query))
        if exact is not None or self.embed is None:
            return exact, None
        vector = self.embed([query])[0]
        for whose, seen in self._seen:
            if cosine(vector, seen) > self.similarity:
                return whose, vector
        return None, vector

    def keep(self, query: str, vector: list[float] | None) -> None:
        """Remember a kept query."""
        self._plains.setdefault(_plain(query), KEPT)
        if vector is not None:
            self._seen.append((KEPT, vector))
