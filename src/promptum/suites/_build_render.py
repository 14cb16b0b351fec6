"""What the stages of building a case share: the problems a stage finds, and rendering.

Each stage of `build_case` returns its value and its `Problems`; the build adds them up in
stage order, so a case's problems read in the order its keys are built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import ValidationError

from promptum.checks import SHARED, CheckDefinition, CheckTable
from promptum.suites._canary import Canary
from promptum.suites._locate import Loc, format_loc
from promptum.suites._missing_context import (
    CASE_WITHOUT_CONTEXT,
    lacks_context,
    only_context_undefined,
)
from promptum.suites._reused import has_template
from promptum.templating import TemplateError, render

Problems = list[tuple[Loc, str]]
"""The problems a stage of building a case found, each at its path within the case."""


class CaseScope(NamedTuple):
    """What a case's templates render with: its variables and its canary."""

    variables: Mapping[str, Any]
    canary: Canary
    literal: bool = False
    """Texts are sent as written, never rendered (the Python API's `Prompt`)."""

    def given(self, name: str, value: Any) -> CaseScope:
        """The same scope with one more variable."""
        return CaseScope({**self.variables, name: value}, self.canary, self.literal)

    def scope(self, text: str) -> Mapping[str, Any]:
        """The variables `text` renders with (the canary's token, when it names it)."""
        return self.canary.scope(text, self.variables)

    def renderer(self, found: Problems, lacking: list[Loc] | None = None) -> Renderer:
        """Renders the case's templates, each failure reported to `found`.

        `lacking` collects the suite's templates that read {{ context }}, which the case
        does not give (without it, that is reported at the case).
        """
        return Renderer(self, found, lacking)


class Renderer:
    """Renders a case's templates with its scope; what fails is a problem, not an error."""

    __slots__ = ("_found", "_lacking", "_scope")

    def __init__(self, scope: CaseScope, found: Problems, lacking: list[Loc] | None) -> None:
        self._scope = scope
        self._found = found
        self._lacking = lacking

    def __call__(self, text: str, loc: Loc, in_suite: Loc | None = None) -> str:
        """`text` filled in; `in_suite`: where the suite wrote it, when the case did not."""
        scope = self._scope
        if scope.literal:
            return text
        try:
            return render(text, scope.scope(text))
        except TemplateError as exc:
            if lacks_context(text, scope.variables):
                if in_suite is None or self._lacking is None:
                    self._found.append((loc, CASE_WITHOUT_CONTEXT))
                else:  # said once for the suite's template, naming the cases
                    self._lacking.append(in_suite)
                if only_context_undefined(str(exc)):
                    return text
            # A case that inherits the suite's template is told where the template is written.
            where = "" if in_suite is None else f" (in the suite's `{format_loc(in_suite)}`)"
            self._found.append((loc, f"{exc}{where}"))
            return text


def filled_in(value: Any, loc: Loc, rendered: Callable[[str, Loc], str]) -> Any:
    """`value` with every template string within it rendered; mapping keys stay as written.

    A value without templates is returned itself, so a check left unchanged stays the same
    object (the suite's defaults, checked once, are known by it).
    """
    if not has_template(value):
        return value
    if isinstance(value, str):
        return rendered(value, loc)
    if isinstance(value, Mapping):
        return {key: filled_in(item, (*loc, key), rendered) for key, item in value.items()}
    return [filled_in(item, (*loc, index), rendered) for index, item in enumerate(value)]


def rendered_check(
    check: CheckDefinition,
    loc: Loc,
    rendered: Callable[[str, Loc], str],
    found: Problems,
    table: CheckTable | None,
) -> CheckDefinition:
    """The check with `{{ vars }}` anywhere in its value filled in (e.g. from a CSV column).

    `table` is the checks compiled in this load, which a filled-in check is compiled with.
    """
    if not has_template(check.value):
        return check
    value = filled_in(check.value, (*loc, "value"), rendered)
    try:
        return valued_check(written_check(check), value, table)
    except ValueError as exc:
        found.append((loc, f"{exc} (after filling in the template)"))
        return check


def written_check(check: CheckDefinition) -> dict[str, Any]:
    """`check` as written, without the keys left at their defaults (a short key for a table)."""
    return check.model_dump(exclude_defaults=True)


def valued_check(
    written: Mapping[str, Any], value: Any, table: CheckTable | None
) -> CheckDefinition:
    """The check `written` with `value` for its own, compiled with `table`.

    Raise ValueError saying why it is not valid.
    """
    try:
        return CheckDefinition.model_validate({**written, "value": value}, context={SHARED: table})
    except ValidationError as exc:
        raise ValueError(str(exc.errors()[0]["msg"]).removeprefix("Value error, ")) from None
