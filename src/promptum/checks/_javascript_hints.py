"""JavaScript written as an expression, refused as it compiles with how Jinja writes it.

A promptfoo assertion is JavaScript (`output.length`, `&&`): what does not parse as Jinja
gets a hint, and what parses but reads a field that is not there gets the fix.
"""

from __future__ import annotations

import re

from promptum.templating import Attribute, Expression

# What JavaScript writes (a promptfoo assertion) and does not parse as Jinja, as a pattern,
# and how a Jinja expression says it.
_JAVASCRIPT_SPELLINGS = {
    r"&&": "`&&` → `and`",
    r"\|\|": "`||` → `or`",
    r"(?<![!=])===": "`===` → `==`",
    r"!==": "`!==` → `!=`",
    r"!(?!=)": "`!x` → `not x`",
    r"\.length\b": "`.length` → `| length`",
    r"\.includes\(": "`.includes` → `'x' in output`",
    r"\bJSON\.parse\(": "`JSON.parse` → `output | from_json`",
    r"\bMath\.(?:min|max)\(": "`Math.min(a, b)` → `[a, b] | min`",
    r"\bnull\b": "`null` → `none`",
    r"\bundefined\b": "`x === undefined` → `x is not defined`",
    r"\?.*:": "`c ? a : b` → `a if c else b`",
    r"=>": "`x => ...` → the `map`, `select` and `reject` filters",
}
_JAVASCRIPT = tuple(
    (re.compile(pattern), jinja) for pattern, jinja in _JAVASCRIPT_SPELLINGS.items()
)


def javascript_hint(source: str) -> str:
    """What to write in Jinja for the JavaScript in `source`, when it does not compile."""
    found = [jinja for pattern, jinja in _JAVASCRIPT if pattern.search(source)]
    if not found:
        return ""
    return f" (this looks like JavaScript; in Jinja: {', '.join(found)})"


# JavaScript's properties and methods of text and lists, which Jinja would read as a field
# that is not there, and how an expression writes each: {0} is what they are read from,
# {1} and {2} the arguments.
_JAVASCRIPT_PROPERTIES = {"length": "{0} | length"}
_JAVASCRIPT_METHODS = {
    "includes": "{1} in {0}",
    "toLowerCase": "{0} | lower",
    "toUpperCase": "{0} | upper",
    "trim": "{0} | trim",
    "trimStart": "{0}.lstrip()",
    "trimEnd": "{0}.rstrip()",
    "startsWith": "{0} is startswith({1})",
    "endsWith": "{0} is endswith({1})",
    "toString": "{0} | string",
    "replaceAll": "{0} | replace({1}, {2})",
    "substring": "{0}[{1}:{2}]",
    "charAt": "{0}[{1}]",
}


_NOT_MAPPINGS = ("output", "(output", "tool_calls", "(tool_calls")
"""How an owner that is text or a list is written: `.length` of it is never a field."""


def javascript_written(compiled: Expression) -> list[str]:
    """What to write for each JavaScript property or method read: `output | length`..."""
    fixes: dict[str, str] = {}
    notes: dict[str, str] = {}
    for attribute in sorted(compiled.attributes, key=_written_length):
        table = _JAVASCRIPT_PROPERTIES if attribute.arguments is None else _JAVASCRIPT_METHODS
        spelling = table.get(attribute.name)
        if spelling is None:
            continue
        owner = attribute.owner
        for inner, fix in fixes.items():  # `output.toLowerCase().includes('a')`
            owner = owner.replace(inner, f"({fix})")
        text = _written(attribute)
        fixes[text] = spelling.format(owner, *(attribute.arguments or ()), "'x'", "'y'")
        if attribute.arguments is None and not attribute.owner.startswith(_NOT_MAPPINGS):
            # A JSON field may be called `length`: a subscript reads it.
            notes[text] = f" (a field named `{attribute.name}` is `{owner}['{attribute.name}']`)"
    return [
        f"`{text}` is JavaScript; an expression writes `{fix}`{notes.get(text, '')}"
        for text, fix in fixes.items()
        if not any(text in other for other in fixes if other != text)  # the outermost
    ]


def _written(attribute: Attribute) -> str:
    called = "" if attribute.arguments is None else f"({', '.join(attribute.arguments)})"
    return f"{attribute.owner}.{attribute.name}{called}"


def _written_length(attribute: Attribute) -> int:
    return len(_written(attribute))
