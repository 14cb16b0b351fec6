"""Validators that parse the response as JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jsonschema.protocols

_FENCE = "```"


def parse_json(text: str) -> Any:
    """Parse JSON text; raise ValueError (never RecursionError) when it is not JSON."""
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply to parse") from exc


def unfence(text: str) -> str | None:
    """Return the body of a response that is entirely one fenced code block, else None."""
    stripped = text.strip()
    if len(stripped) < 2 * len(_FENCE) or not (
        stripped.startswith(_FENCE) and stripped.endswith(_FENCE)
    ):
        return None
    inner = stripped[len(_FENCE) : -len(_FENCE)]
    if _FENCE in inner:
        return None
    first_line, newline, rest = inner.partition("\n")
    # The opening fence may carry a language tag such as ```json.
    if newline and (not first_line.strip() or first_line.strip().isidentifier()):
        return rest
    return inner


def compiled_schema(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    """A validator for a JSON Schema, compiled once per distinct schema.

    Raises ``jsonschema.SchemaError`` when the schema itself is invalid.
    """
    return _schema_validator(json.dumps(schema, sort_keys=True))


@lru_cache(maxsize=256)
def _schema_validator(schema_json: str) -> jsonschema.protocols.Validator:
    import jsonschema  # imported on first use: it costs more than the rest of promptum's core
    from referencing import Registry

    from promptum.validation._regex import bounded_validator_class

    schema = json.loads(schema_json)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    problem = _ref_problem(schema, validator_class)
    if problem is not None:
        raise jsonschema.SchemaError(problem)
    # A schema's `pattern` comes from a suite and meets model output: bound its search. The
    # empty registry retrieves nothing: jsonschema's default fetches a `$ref`'s URL or file.
    return bounded_validator_class(validator_class)(schema, registry=Registry())


def _refs(value: Any) -> Iterator[tuple[Any, bool]]:
    """Every `$ref` and `$dynamicRef` in `value`, each with whether it sits below an `$id`."""
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, below_id = stack.pop()
        if isinstance(node, dict):
            # A nested `$id` is the base its own references and those below it resolve from.
            below_id = below_id or (node is not value and "$id" in node)
            for key in ("$ref", "$dynamicRef"):
                if key in node:
                    yield node[key], below_id
            stack.extend((child, below_id) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, below_id) for child in node)


def _ref_problem(schema: Any, validator_class: type[jsonschema.protocols.Validator]) -> str | None:
    """Why a schema's references cannot be followed within it; None when they can.

    A reference outside the schema (a URL, a file) would be fetched when a response is
    validated: a suite's schema may only point into itself.
    """
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import specification_with

    specification = specification_with(validator_class.META_SCHEMA["$schema"])
    resource = specification.create_resource(schema)
    resolver = Registry().with_resource("", resource).resolver()
    for ref, below_id in _refs(schema):
        if not isinstance(ref, str) or not ref.startswith("#"):
            return (
                f"$ref {ref!r} points outside the schema: only references within it "
                "(#/$defs/...) are followed; copy what it refers to into $defs"
            )
        if below_id:  # resolved from that `$id`, which this resolver does not start from
            continue
        try:
            resolver.lookup(ref)
        except Unresolvable:
            return f"$ref {ref!r} points to nothing in the schema"
    return None


def schema_errors(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    """Return every JSON Schema violation of `instance`, as 'path: message' strings."""
    validator = compiled_schema(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{e.json_path}: {e.message}" for e in errors]


@dataclass(frozen=True, slots=True)
class JsonSchema:
    """Passes when the response is a JSON object with every key in `required_keys`.

    With `schema`, the object must also satisfy that full JSON Schema.
    """

    required_keys: tuple[str, ...] = ()
    schema: Mapping[str, Any] | None = field(default=None, hash=False)

    def __post_init__(self) -> None:
        if self.schema is not None:
            import jsonschema

            try:
                compiled_schema(self.schema)
            except jsonschema.SchemaError as exc:
                raise ValueError(f"invalid JSON Schema: {exc.message}") from exc

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {parsed, missing_keys})``, or ``(False, {error})`` if not an object."""
        try:
            parsed = parse_json(response)
        except ValueError as exc:
            return False, {"error": f"not valid JSON: {exc}"}
        if not isinstance(parsed, dict):
            return False, {"error": f"expected a JSON object, got {type(parsed).__name__}"}
        missing = [key for key in self.required_keys if key not in parsed]
        details: dict[str, Any] = {"parsed": parsed, "missing_keys": missing}
        passed = not missing
        if self.schema is not None:
            errors = schema_errors(parsed, self.schema)
            details["schema_errors"] = errors
            passed = passed and not errors
        return passed, details

    def describe(self) -> str:
        """Describe the criterion."""
        text = "Response is a JSON object"
        if self.required_keys:
            text += " with keys " + ", ".join(repr(k) for k in self.required_keys)
        if self.schema is not None:
            text += " matching the given JSON Schema"
        return text


def parse_json_or_fenced(text: str) -> tuple[Any, bool]:
    """Parse text that is JSON, or entirely one fenced code block of JSON.

    Returns ``(value, fenced)``; raises ValueError with the parser's message otherwise.
    """
    value, fenced, problem = _parsed_or_fenced(text)
    if problem is not None:
        raise ValueError(problem)
    return value, fenced


def json_problem(text: str) -> str | None:
    """Why text is not JSON, raw or as one fenced code block (the parser's message); else None."""
    return _parsed_or_fenced(text)[2]


def _parsed_or_fenced(text: str) -> tuple[Any, bool, str | None]:
    """``(value, fenced, None)``, or ``(None, False, why)`` when text is not JSON either way.

    The problem is returned, not raised: many of the responses a check reads are not JSON,
    and raising costs more than the parse.
    """
    if _may_start_value(text):  # so it is no fenced block either: that starts with a backtick
        value, problem = _parse(text)
        if problem is None:
            return value, False, None
        return None, False, f"not valid JSON: {problem}"
    body = unfence(text)
    if body is None:
        return None, False, f"not valid JSON: {_expecting_value(text)}"
    value, problem = _parse(body) if _may_start_value(body) else (None, _expecting_value(body))
    if problem is None:
        return value, True, None
    return None, False, f"fenced code block is not valid JSON: {problem}"


_SPACE = " \t\n\r"
"""What json's parser skips before a value."""
_VALUE_STARTS = frozenset('"{[-0123456789')
_WORDS = ("null", "true", "false", "NaN", "Infinity")
"""With `_VALUE_STARTS`, all that json's parser reads a value from."""
_BOM = "\ufeff"


def _may_start_value(text: str) -> bool:
    """Whether a JSON value can begin where `text` does: if not, json.loads fails there."""
    body = text.lstrip(_SPACE)
    return body[:1] in _VALUE_STARTS or body.startswith(_WORDS) or text.startswith(_BOM)


def _expecting_value(text: str) -> str:
    """What json.loads says of text where no value can begin, without the cost of its raise."""
    # JSONDecodeError's own wording (building one costs as much as raising it): prose, the
    # most common text that is not JSON, fails here.
    at = len(text) - len(text.lstrip(_SPACE))
    line = text.count("\n", 0, at) + 1
    column = at - text.rfind("\n", 0, at)
    return f"Expecting value: line {line} column {column} (char {at})"


_DECODER = json.JSONDecoder()
"""What `json.loads` decodes a text with; called directly, past the checks `loads` makes of
its argument first (a str, which `_parse`'s callers only give; a BOM, which `_BOM` spares)."""


def _parse(text: str) -> tuple[Any, str | None]:
    """``(value, None)``, or ``(None, the parser's message)`` when `text` is not JSON."""
    try:
        return (json.loads(text) if text.startswith(_BOM) else _DECODER.decode(text)), None
    except ValueError as error:
        return None, str(error)
    except RecursionError:
        return None, "nested too deeply to parse"


@dataclass(frozen=True, slots=True)
class IsValidJson:
    """Passes when the response, raw or as one fenced code block, parses as JSON."""

    def check(self, response: str) -> bool:
        """Return whether `response` passes."""
        return json_problem(response) is None

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        """Return ``(passed, {parsed, fenced})`` or ``(False, {error})``."""
        parsed, fenced, problem = _parsed_or_fenced(response)
        if problem is not None:
            return False, {"error": problem}
        return True, {"parsed": parsed, "fenced": fenced}

    def describe(self) -> str:
        """Describe the criterion."""
        return "Response is valid JSON (raw or in one fenced code block)"
