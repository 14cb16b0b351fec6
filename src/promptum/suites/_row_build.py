"""Data rows built from a prototype: a CSV row's case is its suite's, but for its columns.

The rows of one CSV file share every setting of their suite; only their id, vars and
prompt differ. The first row is built in full (validated, every problem located); the
rows after it copy that case and fill in what a row can change: its id, vars and messages,
and the values of the checks it fills in or writes itself (`_row_checks`: a suite's
`value: "{{ capital }}"`, a `columns:` cell); a row may also write the prototype's tags,
must_pass and repeat. Which keys are which is each key's `RowCopy` role, declared on its
`CaseFields` field. Whatever a row could change beyond that (a rubric filled from its vars,
an `expected_behavior` cell, a target's parameters) keeps the full build, as does any row
the copy cannot vouch for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from promptum.cases import CopiedRow, Prototype, TestCase, own_text
from promptum.suites._canary import VARIABLE, Canary
from promptum.suites._data_files import RawCase
from promptum.suites._format import FILLED, SHARED, keys_copied
from promptum.suites._reused import has_template, same_data
from promptum.suites._row_checks import RowChecks
from promptum.suites._row_texts import RowTexts
from promptum.suites._suite_context import SuiteContext
from promptum.templating import TemplateError, render
from promptum.values.case_result import namespaced

_COPIED_KEYS = keys_copied(FILLED)
"""The keys a row may set and still be copied: each is filled in below as a full build would."""
_SHARED_KEYS = keys_copied(SHARED)
"""The keys a row may also set, to its prototype's very values."""

Role = Literal["system", "user"]

_UNTRIED, _TRUSTED, _REFUSED = 0, 1, 2
_NO_VARS: dict[str, Any] = {}
"""The vars of a row without any (never changed: only read)."""


class RowCopier:
    """Builds a data file's rows by copying its first row's case, when it can (see the module)."""

    def __init__(
        self,
        context: SuiteContext,
        variants: Sequence[SuiteContext],
        texts: RowTexts | None = None,
    ) -> None:
        self.context = context
        self.texts = texts
        """Where loading notes each copied row's fingerprint text, for the plan."""
        # Variants, literal texts and targets read a row's values in ways not copied here.
        simple = len(variants) <= 1 and not context.variant and context.template is None
        simple = simple and not context.literal and context.target is None
        defaults = context.defaults
        self.checks = RowChecks(context)
        # Anything else filled from a row's vars besides its messages differs from row to row.
        shared = (defaults.expected_behavior, defaults.context, context.judge)
        simple = simple and self.checks.possible
        self.state = _UNTRIED if simple and not has_template(_dumped(shared)) else _REFUSED
        self._system = defaults.system or context.system
        """The system message of a row without its own."""
        self.prototype: Prototype | None = None
        """The first row's case, which the rows setting the same `keys` are copied from."""
        self.case: TestCase | None = None
        """The prototype's case, once the first row is built."""
        self.keys: frozenset[str] = frozenset()
        self._shared: dict[str, Any] = {}
        """The prototype row's `_SHARED_KEYS` as written: a row copied writes them the same."""

    def build(self, raw: RawCase) -> TestCase | None:
        """Row `raw`'s case copied from the prototype; None: build it in full."""
        return self._copied(raw) if self._copyable(raw) else None

    def plan_copy(self, raw: RawCase) -> CopiedRow | None:
        """What `build` would copy for row `raw`, as a plan reads it, without making the case.

        None for a row with checks of its own (`RowChecks.per_row`): the plan makes it.
        """
        if self.prototype is None or self.checks.per_row or not self._copyable(raw):
            return None
        parts = self._parts(raw)
        if parts is None:
            return None
        case_id, variables, texts = parts
        return CopiedRow(self.prototype, case_id, texts, variables, raw.locator.line)

    def _copyable(self, raw: RawCase) -> bool:
        """Whether row `raw` sets only what a copy fills in, and the prototype is trusted."""
        return self.state == _TRUSTED and self._alike(raw)

    def _alike(self, raw: RawCase) -> bool:
        """Whether row `raw` sets the prototype's keys, its shared ones to the same values."""
        # The prototype's keys are copied or shared keys (see `built`): the same keys are too.
        data = raw.data
        if data.keys() != self.keys:
            return False
        # Most data files write no shared key: the test is then the keys alone.
        return not self._shared or all(
            same_data(data[key], value) for key, value in self._shared.items()
        )

    def built(self, raw: RawCase, case: TestCase) -> None:
        """Note a row built in full: the first becomes the prototype, the next vouches for it.

        The copy of the prototype for the first row after it that a copy can be made for
        must equal its full build, or no row is copied: that catches what a row changes that
        the copy leaves (e.g. a planted canary).
        """
        if self.state == _REFUSED or raw.data.keys() - _COPIED_KEYS - _SHARED_KEYS:
            return
        if self.prototype is None:
            shared = {key: raw.data[key] for key in raw.data.keys() & _SHARED_KEYS}
            row_checks = None if has_template(shared) else self.checks.prototype(raw, case)
            if row_checks is not None:  # else a later row may be the prototype
                self.prototype, self.case = Prototype(case, row_checks), case
                self.keys = frozenset(raw.data)
                self._shared = shared
            return
        if self.state == _UNTRIED and self._alike(raw):
            copied = self._copied(raw)
            if copied is not None:  # else a later row vouches for it, or none does
                self.state = _TRUSTED if copied == case else _REFUSED

    def checked(self, raw: RawCase) -> str | None:
        """The id of row `raw`'s copied case, when it has one (see `build`), without making it.

        Loading needs only that the copy can be made and its id: every other field it counts
        is the prototype's.
        """
        if not self._copyable(raw):
            return None
        parts = self._parts(raw)
        if parts is None or self.prototype is None:
            return None
        if self.checks.per_row:
            # The plan reads such rows again (their checks are their own): no text is kept.
            return None if self.checks.values(raw, parts[1]) is None else parts[0]
        if self.texts is not None:
            self.texts.add(self.keys, own_text(parts[0], parts[2]))
        return parts[0]

    def copying(self, keys: frozenset[str]) -> TestCase | None:
        """The case rows setting `keys` are copied from; None while they are built in full."""
        return self.case if self.state == _TRUSTED and keys == self.keys else None

    def _copied(self, raw: RawCase) -> TestCase | None:
        parts = self._parts(raw)
        if parts is None or self.prototype is None:
            return None
        case_id, variables, texts = parts
        checks = self.checks.values(raw, variables) if self.checks.per_row else ()
        if checks is None:
            return None
        return self.prototype.copy(case_id, texts, variables, raw.locator.line(), checks)

    def _parts(self, raw: RawCase) -> tuple[str, dict[str, Any], list[tuple[Role, str]]] | None:
        """Row `raw`'s id, vars and messages' (role, text), as a full build makes them.

        None: build it in full.
        """
        context, data = self.context, raw.data
        row_vars = data.get("vars", _NO_VARS)
        case_id = data.get("id", raw.default_id)
        query, system = data.get("query"), data.get("system")
        # Exact types (`type(...) is`, a row's cost): anything else, the full build handles.
        if type(case_id) is not str or not case_id or type(row_vars) is not dict:
            return None  # what validation refuses, the full build locates
        if VARIABLE in row_vars:
            return None  # reserved: the full build says so
        if query is not None and type(query) is not str:
            return None
        if system is not None and type(system) is not str:
            return None
        variables = {**context.variables, **row_vars}
        prompt = query if query is not None else context.prompt
        if prompt is None:
            return None
        texts = self._texts(case_id, variables, system or self._system, prompt)
        return None if texts is None else (case_id, variables, texts)

    def _texts(
        self, case_id: str, variables: dict[str, Any], system: str | None, prompt: str
    ) -> list[tuple[Role, str]] | None:
        """A row's messages' (role, text), rendered as a full build does; None: build it."""
        # A canary is made only for a text naming it (`Canary.scope` looks no further).
        named = VARIABLE in prompt or (system is not None and VARIABLE in system)
        canary = Canary(namespaced(self.context.suite, case_id)) if named else None
        try:
            texts: list[tuple[Role, str]] = []
            if system is not None:
                scope = variables if canary is None else canary.scope(system, variables)
                texts.append(("system", render(system, scope)))
            scope = variables if canary is None else canary.scope(prompt, variables)
            texts.append(("user", render(prompt, scope)))
        except TemplateError:
            return None  # the full build locates it
        return texts


def _dumped(value: Any) -> Any:
    """`value` with its pydantic models and dataclasses as plain data, to look for templates."""
    if isinstance(value, list | tuple):
        return [_dumped(item) for item in value]
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump()
    fields = getattr(value, "__dataclass_fields__", None)
    if fields is not None:
        return {name: _dumped(getattr(value, name)) for name in fields}
    return value
