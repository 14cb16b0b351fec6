"""A suite described to a case generator: its application, its cases' queries and variables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptum.generation import Brief, Passage
from promptum.providers import EndpointConfig
from promptum.suites._redteam import suite_settings, suite_text
from promptum.templating import is_template

MAX_VALUES = 20
"""The most values of one variable the generator is given (each is used in turn)."""


@dataclass(frozen=True, slots=True)
class DescribedSuite:
    """What `promptum generate cases` reads of a suite, and how it writes the new cases."""

    source: dict[str, Any]
    """The suite as read: the generated file keeps its settings."""
    brief: Brief
    endpoints: Mapping[str, EndpointConfig]
    """The suite's `endpoints:`, where a generator model id may point."""
    generator: str | None
    """The suite's `generator:` model, if it names one."""

    def text(self, cases: Sequence[dict[str, Any]], header: str) -> str:
        """The reviewable suite file: the suite's settings but its `name`, then `cases`.

        Written beside the suite, where two suites of one name would stop `promptum run
        <folder>`: its file name names it. (Generated attacks keep the name: their canaries
        are derived from it, and the searches that chose them ran under it.)
        """
        settings = {key: value for key, value in self.source.items() if key != "name"}
        return suite_text(settings, cases, header)


def described_suite(path: Path, passages: Sequence[Passage] = ()) -> DescribedSuite:
    """`path`'s suite as a generator needs it; its settings validated as `validate` does."""
    settings = suite_settings(path)
    raw_cases = settings.data.get("test_cases")
    cases = (
        [raw for raw in raw_cases if isinstance(raw, Mapping)]
        if isinstance(raw_cases, list)
        else []
    )
    facts = settings.facts
    brief = Brief(
        system=facts.system,
        tools=facts.tools,
        response_schema=facts.response_schema,
        variables=_variables(cases),
        queries=[carrier.query for carrier in facts.carriers],
        passages=passages,
    )
    return DescribedSuite(settings.data, brief, settings.spec.endpoints, settings.spec.generator)


def _variables(cases: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Each variable the cases set to plain values, with those values (a file's text is not one)."""
    found: dict[str, list[str]] = {}
    for case in cases:
        values = case.get("vars")
        for name, value in values.items() if isinstance(values, Mapping) else ():
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                text = str(value)
                known = found.setdefault(str(name), [])
                if text not in known and len(known) < MAX_VALUES and not is_template(text):
                    known.append(text)
    return found
