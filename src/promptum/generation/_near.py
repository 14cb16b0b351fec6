"""Near-duplicates: a generated query too close to an existing case or to one already kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Embed = Callable[[Sequence[str]], list[list[float]]]
"""Texts to unit vectors (the embedded MiniLM by default)."""
SIMILARITY = 0.9
"""The cosine above which two queries are the same case: MiniLM gives a paraphrase ~0.9 and
two questions on one subject ~0.6."""


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass(slots=True)
class NearDuplicates:
    """The queries seen so far, by name; tells whether a new one repeats any of them."""

    embed: Embed | None
    """None: only exact repeats (ignoring case and spacing) are found."""
    similarity: float = SIMILARITY
    _names: list[str] = field(default_factory=list)
    _plains: dict[str, str] = field(default_factory=dict)
    _vectors: list[list[float]] = field(default_factory=list)

    def add_existing(self, queries: Sequence[str]) -> None:
        """Take the suite's own queries, embedded in one call."""
        vectors = self.embed(list(queries)) if self.embed is not None and queries else []
        for number, query in enumerate(queries, start=1):
            self._plains.setdefault(_plain(query), f"existing case {number}")
        self._names += [f"existing case {n}" for n in range(1, len(vectors) + 1)]
        self._vectors += vectors

    def repeated(self, query: str) -> tuple[str | None, list[float] | None]:
        """What `query` repeats (None: nothing), and its vector to `keep` it with."""
        exact = self._plains.get(_plain(query))
        if exact is not None or self.embed is None:
            return exact, None
        vector = self.embed([query])[0]
        for name, seen in zip(self._names, self._vectors, strict=True):
            similarity = sum(a * b for a, b in zip(vector, seen, strict=True))
            if similarity > self.similarity:
                return f"{name} (similarity {similarity:.2f})", vector
        return None, vector

    def keep(self, name: str, query: str, vector: list[float] | None) -> None:
        """Remember a kept query under `name`."""
        self._plains.setdefault(_plain(query), name)
        if vector is not None:
            self._names.append(name)
            self._vectors.append(vector)
