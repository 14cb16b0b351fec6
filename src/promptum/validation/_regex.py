"""Regular expressions from suite data, searched with a time bound so none can hang a run.

Python's `re` backtracks without limit and without returning to the interpreter:
``^(a|aa)*$`` on sixty characters runs for hours, and neither Ctrl-C nor SIGTERM is handled
until it returns. The `regex` engine (``re``'s syntax, and more) stops a search at a
timeout. Suite checks and JSON Schema ``pattern`` keywords search through here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jsonschema.protocols
    import regex

REGEX_TIMEOUT_S = 1.0
"""The longest one search may take. A sane pattern scans even a long response in well under
a millisecond, so 1 s leaves a thousandfold margin for a loaded CI machine, while a pattern
that backtracks catastrophically costs one second per response, not the run."""

Search = Callable[[str], "regex.Match[str] | None"]
"""A compiled pattern's search; raises ``TimeoutError`` when it runs out of time."""


def too_slow(pattern: str, subject: str = "this response") -> str:
    """The reason given when ``pattern`` ran out of time on ``subject``."""
    return (
        f"regex took longer than {REGEX_TIMEOUT_S:g} s on {subject}: /{pattern}/ backtracks "
        "catastrophically; simplify it (nested repeats such as (\\w+\\s?)* are the usual cause)"
    )


@lru_cache(maxsize=1024)
def bounded_search(pattern: str, flags: int = 0) -> Search:
    """The search for ``pattern``, compiled once; raises ``regex.error`` if it is invalid."""
    import regex  # imported on first use: it costs ~15 ms, more than `promptum --help` may

    search = regex.compile(pattern, flags).search
    if cannot_backtrack(pattern, flags):
        # The timeout costs ~2 µs a call (the engine reads the clock): spared where no
        # text can make the search slower than linear.
        return search
    return partial(search, timeout=REGEX_TIMEOUT_S)


def cannot_backtrack(pattern: str, flags: int) -> bool:
    """Whether a search for ``pattern`` has at most one choice to retry at each position.

    True only for patterns without a repeat of variable count (``*``, ``+``, ``?``,
    ``{m,n}``) and with at most one alternation, outside any repeat: each start position
    then costs at most the pattern's length. Whatever ``re``'s parser cannot read (the
    `regex` engine's own syntax, such as fuzzy matching) is treated as able to.
    """
    try:
        # re's parser is private; if it ever changes shape, every pattern gets the bound.
        parser = importlib.import_module("re._parser")
        tree = parser.parse(pattern, flags)
        return _Choices().simple(tree, in_repeat=False)
    except Exception:
        return False


class _Choices:
    """Walks an ``re`` parse tree counting alternations; any doubt answers False."""

    def __init__(self) -> None:
        self.codes: Any = importlib.import_module("re._constants")
        self.alternations = 0

    def simple(self, items: Iterable[tuple[Any, Any]], *, in_repeat: bool) -> bool:
        """Whether this part of the tree keeps the whole pattern at one choice at most."""
        return all(self._node(op, arg, in_repeat=in_repeat) for op, arg in items)

    def _node(self, op: Any, arg: Any, *, in_repeat: bool) -> bool:
        """Whether one node of the tree keeps the whole pattern at one choice at most."""
        c = self.codes
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, high, body = arg
            return low == high and self.simple(body, in_repeat=True)
        if op is c.BRANCH:
            return self._branch(arg[1], in_repeat=in_repeat)
        group = self._group(op, arg)
        if group is not None:
            return self.simple(group, in_repeat=in_repeat)
        if op is c.LITERAL and arg == ord("{"):
            return False  # `a{e<=1}` is a literal to re, fuzzy matching to regex
        # Anything else, a conditional group say, was not foreseen here.
        return op in (c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY, c.AT, c.GROUPREF)

    def _branch(self, parts: Iterable[Any], *, in_repeat: bool) -> bool:
        """Whether an alternation is the pattern's only one, outside any repeat, and simple."""
        self.alternations += 1
        if in_repeat or self.alternations > 1:
            return False
        return all(self.simple(part, in_repeat=False) for part in parts)

    def _group(self, op: Any, arg: Any) -> Any:
        """The body of a group or lookaround node, or None for any other node."""
        c = self.codes
        if op is c.SUBPATTERN:
            return arg[3]
        if op in (c.ASSERT, c.ASSERT_NOT):
            return arg[1]
        if op is c.ATOMIC_GROUP:
            return arg
        return None


# The JSON Schema keywords that search with a schema's patterns, re-implemented on the bounded
# search (jsonschema calls `re.search`); their messages are jsonschema's own.
Errors = Iterator[Any]


@lru_cache(maxsize=256)
def _found(pattern: str, text: str) -> bool | None:
    """Whether ``pattern`` finds ``text``; None when it ran out of time.

    Remembered, because jsonschema asks again (patternProperties, then additionalProperties;
    `parse_structured` validates an object twice), and each repeat would cost the bound again.
    """
    try:
        return bounded_search(pattern)(text) is not None
    except TimeoutError:
        return None


def _matches(pattern: str, text: str, subject: str) -> tuple[bool, str | None]:
    """Whether ``pattern`` finds ``text``, or (False, why) when it ran out of time."""
    found = _found(pattern, text)
    return (False, too_slow(pattern, subject)) if found is None else (found, None)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Errors:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "string"):
        return
    found, slow = _matches(pattern, instance, "this string")
    if slow:
        yield ValidationError(slow)
    elif not found:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Errors:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found, slow = _matches(pattern, key, f"the key {key[:40]!r}")
            if slow:
                yield ValidationError(slow)
            elif found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Mapping[str, Any]
) -> Errors:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    patterns = schema.get("patternProperties", {})
    extras = []
    for key, slow in _unlisted(instance, schema.get("properties", {}), patterns):
        if slow:
            yield ValidationError(slow)
        else:
            extras.append(key)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        yield ValidationError(_not_allowed(extras, patterns))


def _unlisted(
    instance: Mapping[str, Any], properties: Mapping[str, Any], patterns: Mapping[str, Any]
) -> Iterator[tuple[str, str | None]]:
    """Each key no property names and no pattern finds, with why if a pattern ran out of time."""
    for key in instance:
        if key in properties:
            continue
        hits = [_matches(pattern, key, f"the key {key[:40]!r}") for pattern in patterns]
        slow = next((why for _, why in hits if why), None)
        if slow or not any(found for found, _ in hits):
            yield key, slow


def _not_allowed(extras: list[str], patterns: Mapping[str, Any]) -> str:
    """The message, as jsonschema words it, for keys `additionalProperties: false` refuses."""
    joined = ", ".join(repr(each) for each in sorted(extras, key=str))
    if patterns:
        verb = "does" if len(extras) == 1 else "do"
        listed = ", ".join(repr(each) for each in sorted(patterns))
        return f"{joined} {verb} not match any of the regexes: {listed}"
    verb = "was" if len(extras) == 1 else "were"
    return f"Additional properties are not allowed ({joined} {verb} unexpected)"


@lru_cache(maxsize=16)
def bounded_validator_class(
    cls: type[jsonschema.protocols.Validator],
) -> type[jsonschema.protocols.Validator]:
    """``cls`` with ``pattern``, ``patternProperties`` and ``additionalProperties`` bounded."""
    from jsonschema.validators import extend

    keywords = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    }
    # Only the keywords this draft has: an older draft keeps its own vocabulary.
    mine = {name: function for name, function in keywords.items() if name in cls.VALIDATORS}
    bounded: type[jsonschema.protocols.Validator] = extend(cls, mine)  # type: ignore[no-untyped-call]
    return bounded
