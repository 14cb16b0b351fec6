"""A template reading {{ context }} that a case does not give: found per case, said once.

`context` is a case key (the documents a case's answer rests on), not a var: a suite's
system message reading it fails for every case without one, and one problem at the
template, naming those cases, says what to do; the undefined-variable error of each case
would repeat it, with the fix for a var.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from promptum.suites._locate import Loc
from promptum.templating import names_read

CONTEXT = "context"
_SHOWN = 3
_FIX = (
    "give {whom} `context:` (the documents to answer from), or the suite "
    "`defaults: {{context: ...}}` for every case; `context` is a case key, not a var"
)
CASE_WITHOUT_CONTEXT = "reads {{ context }}, but the case has no `context`: " + _FIX.format(
    whom="it"
)


def lacks_context(text: str, variables: Mapping[str, Any]) -> bool:
    """Whether the template `text` reads {{ context }} and `variables` do not give it."""
    return CONTEXT not in variables and CONTEXT in names_read(text)


def only_context_undefined(message: str) -> bool:
    """Whether a template error says just that `context` is undefined."""
    return f"'{CONTEXT}' is undefined" in message


@dataclass(slots=True)
class WithoutContext:
    """The suite's templates reading {{ context }}, and where each case lacking it is."""

    cases: dict[Loc, list[str]] = field(default_factory=dict)
    counts: dict[Loc, int] = field(default_factory=dict)

    def add(self, templates: tuple[Loc, ...], case: str) -> None:
        """Note the case at `case` (``file:line``), which the templates at `templates` fail."""
        for loc in dict.fromkeys(templates):
            self.counts[loc] = self.counts.get(loc, 0) + 1
            shown = self.cases.setdefault(loc, [])
            if len(shown) < _SHOWN:
                shown.append(case)

    def problems(self) -> list[tuple[Loc, str]]:
        """One problem for each template, at the template (within the suite)."""
        found = []
        for loc, count in self.counts.items():
            places = ", ".join(self.cases[loc])
            if count > len(self.cases[loc]):
                places += f" and {count - len(self.cases[loc])} more"
            cases = "1 case gives" if count == 1 else f"{count} cases give"
            whom = "it" if count == 1 else "the cases"
            message = f"reads {{{{ context }}}}, but {cases} no `context` ({places}): "
            found.append((loc, message + _FIX.format(whom=whom)))
        return found
