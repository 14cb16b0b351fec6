"""How well each part of a config converted, and the located list of what did not."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from promptum.importers._source import Where


class Fidelity(Enum):
    """How faithfully one promptfoo assertion or setting is kept in the suite."""

    EXACT = "exactly"
    APPROXIMATE = "approximately"
    NONE = "not converted"


@dataclass(frozen=True, slots=True)
class Note:
    """A located part of the config that converted approximately or not at all, and why."""

    where: Where
    what: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}: {self.why}"


@dataclass(slots=True)
class Outcome:
    """The counts of assertions by fidelity, and every note, in the config's order."""

    counts: dict[Fidelity, int] = field(default_factory=lambda: dict.fromkeys(Fidelity, 0))
    approximate: list[Note] = field(default_factory=list)
    skipped: list[Note] = field(default_factory=list)

    def assertion(self, fidelity: Fidelity, note: Note | None = None) -> None:
        """Count one assertion, and note it unless it converted exactly."""
        self.counts[fidelity] += 1
        if note is not None:
            self.setting(fidelity, note)

    def setting(self, fidelity: Fidelity, note: Note) -> None:
        """Note a setting (not an assertion) that converted approximately or not at all."""
        if fidelity is Fidelity.APPROXIMATE:
            self.approximate.append(note)
        elif fidelity is Fidelity.NONE:
            self.skipped.append(note)

    def downgrade(self, fidelity: Fidelity, note: Note) -> None:
        """An assertion counted as `fidelity` turned out not to convert after all."""
        self.counts[fidelity] -= 1
        if fidelity is Fidelity.APPROXIMATE:
            self.approximate = [n for n in self.approximate if n.where != note.where]
        self.assertion(Fidelity.NONE, note)
