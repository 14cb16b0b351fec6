"""The registry from check type name to implementation: adding a type is one line here.

Types from outside promptum join it through `register_check` (``promptum.register_check``)
or an entry point of the ``promptum.checks`` group, loaded the first time its name is
looked up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from promptum.checks import (
    _affixes,
    _answered,
    _approx,
    _budget,
    _distance,
    _json,
    _length,
    _overlap,
    _python,
    _similar,
    _text,
    _tools,
)
from promptum.checks._base import CheckType, ValueKind
from promptum.checks._custom import function_check_type, plugin_check_type, signature_kind
from promptum.checks._exfiltration import NO_EXFILTRATION
from promptum.checks._expr_check import EXPR
from promptum.checks._hijack import FIELD_NOT_HIJACKED
from promptum.checks._leaks import CANARY_NOT_LEAKED, SECRET_NOT_LEAKED
from promptum.checks._pii import PII_NOT_LEAKED
from promptum.foundations.entry_points import CHECKS_GROUP, Registry, caller_label
from promptum.foundations.suggestions import did_you_mean

CHECK_TYPES: dict[str, CheckType] = {
    check_type.name: check_type
    for check_type in (
        _text.CONTAINS,
        _text.NOT_CONTAINS,
        _text.REGEX,
        _text.NOT_REGEX,
        _text.EXACT_MATCH,
        _affixes.STARTS_WITH,
        _affixes.ENDS_WITH,
        _affixes.CONTAINS_ANY,
        _affixes.CONTAINS_ALL,
        _distance.LEVENSHTEIN,
        _approx.APPROX,
        _overlap.ROUGE,
        _overlap.BLEU_CHECK,
        _json.IS_VALID_JSON,
        _budget.MAX_LATENCY_MS,
        _budget.MAX_COST_USD,
        _length.MIN_LENGTH,
        _length.MAX_LENGTH,
        _similar.SIMILAR,
        _tools.TOOL_CALLED,
        _tools.TOOL_NOT_CALLED,
        _tools.TOOL_ORDER,
        _tools.TOOL_ARGS,
        _python.PYTHON,
        EXPR,
        CANARY_NOT_LEAKED,
        NO_EXFILTRATION,
        SECRET_NOT_LEAKED,
        PII_NOT_LEAKED,
        FIELD_NOT_HIJACKED,
        _answered.ANSWERED,
    )
}
"""Every check type by name: the built-in ones, then those registered or loaded as plugins."""

_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_REGISTRY: Registry[CheckType] = Registry(
    "check type",
    CHECKS_GROUP,
    CHECK_TYPES,
    lambda name, target, plugin: register_check_type(name, target, plugin),
    built_in_as="a built-in check type",
    pattern=_NAME,
)


def get_check_type(name: str) -> CheckType:
    """Return the type `name` (a plugin's loaded on first use); else ValueError listing them."""
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    known = _REGISTRY.names()
    hint = did_you_mean(str(name), known)
    raise ValueError(f"unknown check type {name!r}.{hint} Valid types: {', '.join(known)}")


def is_built_in(name: str) -> bool:
    """Whether check type ``name`` is one of promptum's own, not registered or a plugin's."""
    return name in _REGISTRY.built_in


def is_written_by_user(name: str) -> bool:
    """Whether check type ``name`` runs the user's code: ``python``, or a registered type."""
    return name == _python.PYTHON.name or name in _REGISTRY.origins


def all_check_types() -> dict[str, CheckType]:
    """Every check type, with those of installed plugins loaded (for the suite's JSON Schema)."""
    for name in _REGISTRY.plugin_names():
        if name not in CHECK_TYPES:
            get_check_type(name)
    return CHECK_TYPES


def register_check_type(
    name: str,
    check: Any,
    plugin: str,
    description: str | None = None,
    threshold: float = 0.5,
) -> CheckType:
    """Add a check type from ``plugin``: a function of the response, or a full `CheckType`.

    Raises `PluginError` naming the plugin and the reason: a name taken or malformed, a
    function that cannot be called as a check, a threshold outside 0-1.
    """

    def refuse(reason: str) -> Exception:
        return _REGISTRY.error(name, plugin, reason)

    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise refuse(
            "a check type's name is a word (letters, digits, '_', '-', '.'), as YAML writes it"
        )
    if name in CHECK_TYPES:
        raise refuse(f"the name is taken ({_REGISTRY.whose(name)}); choose another")
    is_number = isinstance(threshold, int | float) and not isinstance(threshold, bool)
    if not is_number or not 0 <= threshold <= 1:
        raise refuse(f"threshold must be a number from 0 to 1, got {threshold!r}")
    if isinstance(check, CheckType):
        if check.name != name:
            raise refuse(f"the CheckType is named {check.name!r}; register it under its own name")
        if not callable(check.build):
            raise refuse("the CheckType's build is not callable")
        check_type = plugin_check_type(check)
    else:
        kind = signature_kind(check)
        if not isinstance(kind, ValueKind):
            raise refuse(kind)
        check_type = function_check_type(name, check, kind, description, float(threshold))
    return _REGISTRY.add(name, check_type, plugin)


def register_check(
    name: str,
    check: Callable[..., Any] | CheckType,
    *,
    description: str | None = None,
    threshold: float = 0.5,
) -> CheckType:
    """Add check type ``name``: a function of the response (and ``value``), or a CheckType.

    ``def f(response)`` makes a type that takes no ``value``; ``def f(response, value)`` one
    that needs one. The function returns a bool, a score from 0 to 1 (passing at or above
    the definition's ``threshold``, by default ``threshold`` here), a ``(passed, reason)``
    pair or a `Grade`; it may be async. Raises `PluginError` if the name is taken or the
    function's signature does not fit.
    """
    return register_check_type(
        name, check, caller_label("register_check", check), description, threshold
    )


def unregister_check_type(name: str) -> None:
    """Remove a registered check type (a built-in one stays); for tests and reloading code."""
    _REGISTRY.unregister(name)
