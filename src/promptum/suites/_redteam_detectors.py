"""The `custom:` goals' detectors of a `redteam:` section, checked before any attack is made."""

from __future__ import annotations

from pydantic import ValidationError

from promptum import redteam
from promptum.checks import FOLDER, SHARED, CheckDefinition, CheckTable
from promptum.suites._locate import Locator, validation_problems


def custom_detector_problems(section: redteam.RedteamSpec, locator: Locator) -> list[str]:
    """Each custom goal's check that would not load, located at its `check:` in the section.

    Checked once here, not on each generated case: a broken expression or a missing
    `file.py` is one mistake, where the user wrote it.
    """
    context = {FOLDER: locator.path.parent, SHARED: CheckTable()}
    problems = []
    for name, goal in (section.custom or {}).items():
        try:
            CheckDefinition.model_validate(goal.check, context=context)
        except ValidationError as exc:
            where = locator.within(("redteam", "custom", name, "check"))
            problems += validation_problems(where, CheckDefinition, goal.check, exc)
    return problems
