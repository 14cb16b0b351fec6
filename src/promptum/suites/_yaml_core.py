"""YAML 1.2's core schema as js-yaml reads it: the plain scalars other tools' configs mean.

A suite is YAML 1.1 (PyYAML's): `yes`, `on`, `off` are booleans and `012` is octal. promptfoo
reads its configs with js-yaml, whose default schema is YAML 1.2's core (only true and false
are booleans, `012` is 12) with dates and merge keys: a config it wrote means that.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_KEPT_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("null", "timestamp", "merge"))
"""PyYAML's implicit tags js-yaml resolves the same way."""

_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(
    r"""^[-+]?(?:0b[01_]*[01]|0x[0-9a-fA-F_]*[0-9a-fA-F]|0o[0-7_]*[0-7]
    |(?!0_)[0-9](?:[0-9_]*[0-9])?)$""",
    re.VERBOSE,
)
"""js-yaml's integers: binary, hex, octal (`0o`), and decimals (a leading 0 is decimal)."""
_FLOAT = re.compile(
    r"""^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?
    |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))(?<!_)$""",
    re.VERBOSE,
)
"""js-yaml's floats: the integers are matched first, as js-yaml tries them first."""

_BASES = {"0b": 2, "0x": 16, "0o": 8}


def core_resolvers(
    yaml11: dict[Any, list[tuple[str, re.Pattern[str]]]],
) -> dict[Any, list[tuple[str, re.Pattern[str]]]]:
    """The implicit resolvers of the core schema, from PyYAML's 1.1 ones (`yaml11`)."""
    resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
    for first, pairs in yaml11.items():
        kept = [(tag, pattern) for tag, pattern in pairs if tag in _KEPT_TAGS]
        if kept:
            resolvers[first] = kept
    added = (
        ("bool", _BOOL, "tTfF"),
        ("int", _INT, "-+0123456789"),
        ("float", _FLOAT, "-+0123456789."),
    )
    for name, pattern, firsts in added:
        for first in firsts:
            resolvers.setdefault(first, []).append((f"tag:yaml.org,2002:{name}", pattern))
    return resolvers


def core_int(node: yaml.ScalarNode) -> int:
    """A core schema integer's value: `012` is 12, as js-yaml reads it (YAML 1.1: 10)."""
    text = str(node.value).replace("_", "")
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-")
    base = _BASES.get(digits[:2], 10)
    return sign * int(digits[2:] if base != 10 else digits, base)
