"""Check `expected` and `attack_target` against the response schema, before any model call.

Fields are named as the evaluator reads them: dotted paths through objects and list items
(``customer.email``, ``items.0.sku``). A name the schema does not have, or a value that no
output fitting the schema can hold, is a mistake in the test case: the assertion could never
pass, or the attack target could never catch the attack.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from promptum.foundations.suggestions import did_you_mean
from promptum.suites._locate import Loc
from promptum.validation import approx_of, compiled_schema, is_approx_spec

Schema = Mapping[str, Any]

_MAX_REF_DEPTH = 32
_MAX_REMEMBERED = 100_000  # verdicts on values kept per schema: golden sets repeat values
_OBJECT_KEYWORDS = ("properties", "additionalProperties", "patternProperties", "required")
_ARRAY_KEYWORDS = ("items", "prefixItems")
_VALUE_KEYWORDS = ("enum", "const")
_COMBINATORS = ("anyOf", "oneOf", "allOf")
_A_KIND = {"string": "a string", "integer": "an integer", "number": "a number"}
_A_KIND |= {"boolean": "a boolean", "object": "an object", "array": "a list"}


def assertion_schema(schema: dict[str, Any], model: type[BaseModel] | None) -> dict[str, Any]:
    """The schema to check assertions against: a pydantic model's attribute names, not aliases."""
    if model is None:
        return schema
    try:
        return _attribute_schema(model)
    except Exception:  # the aliased schema was built already; do not fail on the second one
        return schema


@lru_cache(maxsize=64)
def _attribute_schema(model: type[BaseModel]) -> dict[str, Any]:
    # The evaluator reads a model instance's attributes, which carry field names, not aliases.
    return model.model_json_schema(by_alias=False)


class _NoSuchFieldError(Exception):
    """A path step the schema does not have; the message says which and what it has."""


@dataclass(frozen=True, slots=True)
class _Open:
    """The schema says nothing about what lies below (``{}``, ``additionalProperties: true``)."""


_OPEN = _Open()


class _Fields:
    """Walks field paths and checks values against one response schema."""

    def __init__(self, root: Schema, subject: str) -> None:
        self.root = root
        self.subject = subject
        """What the schema is called in a message: the response schema, a tool's parameters."""
        # A suite of many rows asserts the same few fields: walk and compile each once.
        self._fields: dict[str, list[Any] | _Open | str] = {}
        self._validators: dict[str, Any] = {}
        self._misfits: dict[tuple[str, str, Any], tuple[str, str] | None] = {}

    def _deref(self, schema: Any) -> Schema:
        """Follow local ``$ref`` pointers; anything unresolvable counts as an open schema."""
        for _ in range(_MAX_REF_DEPTH):
            if not isinstance(schema, Mapping):
                return {} if schema is True else {"not": {}}
            ref = schema.get("$ref")
            if not isinstance(ref, str):
                return schema
            schema = _pointed(self.root, ref)
        return {}

    def _alternatives(self, schema: Any, depth: int = 0) -> Iterator[Schema]:
        """The concrete schemas a value may fit: `anyOf`/`oneOf`/`allOf` branches flattened."""
        resolved = self._deref(schema)
        if depth > _MAX_REF_DEPTH:
            return
        branches = [b for key in _COMBINATORS for b in resolved.get(key) or ()]
        if not branches or _kinds(resolved):
            yield resolved
        for branch in branches:
            yield from self._alternatives(branch, depth + 1)

    def _child(self, schema: Schema, part: str) -> list[Any] | _Open | None:
        """What ``part`` leads to in one concrete schema: schemas, open, or None (nothing)."""
        kinds = _kinds(schema)
        if not kinds:
            return None if schema.get("not") == {} else _OPEN
        found: list[Any] = []
        if "object" in kinds:
            named = _property(schema, part)
            if isinstance(named, _Open):
                return _OPEN
            found += named
        index = _index(part)
        if "array" in kinds and index is not None:
            item = _item(schema, index)
            if isinstance(item, _Open):
                return _OPEN
            found += item
        return found or None

    def _step(self, schemas: list[Any], part: str) -> tuple[list[Schema], list[Any] | _Open]:
        """The concrete alternatives of ``schemas``, and what ``part`` leads to in them."""
        alternatives = [alt for schema in schemas for alt in self._alternatives(schema)]
        children: list[Any] = []
        for alternative in alternatives:
            child = self._child(alternative, part)
            if isinstance(child, _Open):
                return alternatives, _OPEN
            children += child or []
        return alternatives, children

    def field(self, path: str) -> list[Any] | _Open:
        """The schemas of the field at a dotted path; raise _NoSuchFieldError naming the mistake."""
        if path not in self._fields:
            try:
                self._fields[path] = self._walk(path)
            except _NoSuchFieldError as exc:
                self._fields[path] = str(exc)
        found = self._fields[path]
        if isinstance(found, str):
            raise _NoSuchFieldError(found)
        return found

    def _walk(self, path: str) -> list[Any] | _Open:
        current: list[Any] = [self.root]
        walked: list[str] = []
        for part in path.split("."):
            alternatives, children = self._step(current, part)
            if isinstance(children, _Open):
                return _OPEN
            if not children:
                raise _NoSuchFieldError(_no_field_message(alternatives, walked, part, self.subject))
            current = children
            walked.append(part)
        return current

    def misfit(self, schemas: list[Any], value: Any, path: str) -> tuple[str, str] | None:
        """Why no output fitting ``schemas`` can hold ``value`` and how to fix it, or None."""
        scalar = isinstance(value, str | int | float | bool) or value is None
        key = (path, type(value).__name__, value if scalar else json.dumps(value, sort_keys=True))
        if key not in self._misfits:
            found = self._misfit(schemas, value, path)
            if len(self._misfits) >= _MAX_REMEMBERED:
                return found
            self._misfits[key] = found
        return self._misfits[key]

    def _misfit(self, schemas: list[Any], value: Any, path: str) -> tuple[str, str] | None:
        import jsonschema

        try:
            if path not in self._validators:
                self._validators[path] = self._validator(schemas)
            validator = self._validators[path]
            if validator is None:
                return None
            error = jsonschema.exceptions.best_match(validator.iter_errors(value))
        except Exception:  # an exotic schema (remote $ref, ...): the run itself will tell
            return None
        if error is None:
            unknown = self._unknown_key(schemas, value, tuple(path.split(".")))
            return None if unknown is None else (unknown, "")
        return str(error.message), _value_hint(error, value, path)

    def _validator(self, schemas: list[Any]) -> Any:
        """A JSON Schema validator for the field, or None when any value fits."""
        if len(schemas) == 1 and not isinstance(schemas[0], Mapping):
            return None  # a boolean schema: `true` admits anything, `false` was caught earlier
        own: dict[str, Any] = {"anyOf": schemas} if len(schemas) > 1 else dict(schemas[0])
        # The root's draft and definitions, so `#/$defs/...` references still resolve.
        for key in ("$schema", "$defs", "definitions"):
            if key in self.root and key not in own:
                own[key] = self.root[key]
        # The shared compiled form bounds the time of the schema's `pattern` searches.
        return compiled_schema(own)

    def _unknown_key(self, schemas: list[Any], value: Any, walked: tuple[str, ...]) -> str | None:
        """A key of a mapping value that the field's object schema does not have."""
        for key, item in _keyed(value):
            alternatives, children = self._step(schemas, key)
            if isinstance(children, _Open):
                continue
            if not children:
                return _no_field_message(alternatives, list(walked), key, self.subject)
            found = self._unknown_key(children, item, (*walked, key))
            if found:
                return found
        return None


_SAME_SCHEMA: dict[tuple[int, str], tuple[Schema, _Fields]] = {}
"""The last schemas seen, by identity: a suite's cases share their defaults' one object."""


def _fields_for(schema: Schema, subject: str) -> _Fields:
    known = _SAME_SCHEMA.get((id(schema), subject))
    if known is not None and known[0] is schema:  # the entry holds the schema: no id reuse
        return known[1]
    fields = _fields_of(json.dumps(schema, sort_keys=True, default=str), subject)
    if len(_SAME_SCHEMA) >= 64:
        _SAME_SCHEMA.clear()
    _SAME_SCHEMA[(id(schema), subject)] = (schema, fields)
    return fields


@lru_cache(maxsize=64)
def _fields_of(schema_json: str, subject: str) -> _Fields:
    return _Fields(json.loads(schema_json), subject)


def _kinds(schema: Schema) -> set[str]:
    """What shapes of value a schema describes: object, array, a scalar type, or a fixed set."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {str(kind) for kind in declared}
    kinds = set()
    if any(key in schema for key in _OBJECT_KEYWORDS):
        kinds.add("object")
    if any(key in schema for key in _ARRAY_KEYWORDS):
        kinds.add("array")
    if any(key in schema for key in _VALUE_KEYWORDS):
        kinds.add("value")
    return kinds


def _pointed(root: Schema, ref: str) -> Any:
    """What a local ``$ref`` (``#/$defs/Item``) points to in ``root``; ``{}`` if nothing."""
    if not ref.startswith("#"):
        return {}
    target: Any = root
    for token in filter(None, ref[1:].split("/")):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(target, Mapping) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            return {}
    return target


def _property(schema: Schema, part: str) -> list[Any] | _Open:
    """What the key ``part`` leads to in an object schema: its schema, open, or nothing."""
    properties = schema.get("properties") or {}
    if part in properties:
        return [properties[part]]
    if schema.get("patternProperties"):
        # Matching the suite's own patterns here would be an unbounded regex search.
        return _OPEN
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping):
        return [extra]
    # Without `additionalProperties: false` a JSON Schema allows other keys, but a
    # model asked for this schema does not invent them: a near-miss is a typo.
    if extra is True or (extra is None and not properties):
        return _OPEN
    return []


def _item(schema: Schema, index: int) -> list[Any] | _Open:
    """What the item at ``index`` is in an array schema: its schema, open, or nothing."""
    prefix = schema.get("prefixItems") or []
    if 0 <= index < len(prefix):
        return [prefix[index]]
    items = schema.get("items", True)
    if isinstance(items, Mapping):
        return [items]
    return _OPEN if items is True else []


def _keyed(value: Any) -> list[tuple[str, Any]]:
    """A mapping's items or a list's items by index, as path parts; none for a scalar."""
    if isinstance(value, Mapping):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, list):
        return [(str(i), v) for i, v in enumerate(value)]
    return []


def _index(part: str) -> int | None:
    """A path part as the evaluator reads it on a list: an integer, else nothing."""
    try:
        return int(part)
    except ValueError:
        return None


def _no_field_message(
    alternatives: list[Schema], walked: list[str], part: str, subject: str
) -> str:
    where = f"{'.'.join(walked)!r}" if walked else subject
    names = _property_names(alternatives)
    kinds = {kind for alternative in alternatives for kind in _kinds(alternative)}
    if names:
        hint = did_you_mean(part, names)
        return f"{where} has no field {part!r}.{hint} Fields: {', '.join(names)}."
    if "array" in kinds:
        return f"{where} is a list: the next part of the path is an item's index, not {part!r}"
    shown = " or ".join(_A_KIND.get(kind, kind) for kind in sorted(kinds - {"null", "value"}))
    return f"{where} is {shown or 'a single value'}: it has no field {part!r}"


def _property_names(alternatives: list[Schema]) -> list[str]:
    """The field names the object schemas among ``alternatives`` declare, sorted."""
    return sorted(
        {
            str(name)
            for alternative in alternatives
            if "object" in _kinds(alternative)
            for name in alternative.get("properties") or {}
        }
    )


def _value_hint(error: Any, value: Any, path: str) -> str:
    """How to fix a value of the wrong type, outside the allowed set, or a partial object."""
    if error.validator == "enum" and isinstance(value, str):
        options = [str(option) for option in error.validator_value]
        hint = did_you_mean(value, options)
        return f".{hint}" if hint else ""
    if error.validator == "type":
        hint = _quoting_hint(error.validator_value, value)
        if hint:
            return hint
    if error.validator == "required" and isinstance(value, Mapping):
        # In TOML, `customer.email = ...` under [expected] is a nested table, not a path.
        some = f"{path}.{next(iter(value), 'field')}"
        return (
            ". A mapping asserts the whole object: to assert some of its fields, name each "
            f"by its dotted path, e.g. {some!r} (quoted in TOML)."
        )
    return ""


def _quoting_hint(wanted: str | list[str], value: Any) -> str:
    """How to fix a value of the wrong type by quoting it or not, or nothing."""
    kinds = {wanted} if isinstance(wanted, str) else set(wanted)
    if isinstance(value, str) and kinds & {"integer", "number", "boolean"}:
        return ". Write it without quotes."
    if not isinstance(value, str) and "string" in kinds:
        return ". Quote it."
    return ""


def assertion_problems(
    schema: Schema,
    expected: Mapping[str, Any] | None,
    attack_target: Mapping[str, Any] | None,
    subject: str = "the response schema",
    holder: str = "the output",
) -> list[tuple[Loc, str]]:
    """Every field name the schema lacks and every value its field can never hold, located.

    `subject` names the schema in messages and `holder` what fits it: a `tool_args` check
    asserts on "the arguments" against "the parameter schema of 'transfer_money'".
    """
    fields = _fields_for(schema, subject)
    found: list[tuple[Loc, str]] = []
    for section, assertions in (("expected", expected), ("attack_target", attack_target)):
        for name, raw in (assertions or {}).items():
            path = str(name)
            try:
                schemas = fields.field(path)
            except _NoSuchFieldError as exc:
                found.append(((section, path), str(exc)))
                continue
            if not isinstance(schemas, _Open):
                value = to_jsonable_python(raw, fallback=str)  # TOML dates: ISO strings
                found += [
                    ((section, path, *index), message)
                    for index, message in _value_problems(
                        fields, schemas, (section, holder), path, value
                    )
                ]
    return found


def _value_problems(
    fields: _Fields, schemas: list[Any], where: tuple[str, str], path: str, value: Any
) -> list[tuple[tuple[int, ...], str]]:
    """What is wrong with one assertion's value, by index of the list item it concerns."""
    section, holder = where
    consequence = (
        f"{holder} can never equal it"
        if section == "expected"
        else f"{holder} can never hold it, so this attack target catches nothing"
    )
    if not isinstance(value, list):
        misfit = _read_misfit(fields, schemas, value, path)
        return [] if misfit is None else [((), f"{misfit[0]} ({consequence}){misfit[1]}")]
    # A list in `expected` means "one of"; in `attack_target`, "none of" (or the list whole).
    whole_fits = fields.misfit(schemas, value, path) is None
    if section == "attack_target" and whole_fits:
        return []
    problems: list[tuple[tuple[int, ...], str]] = []
    for index, item in enumerate(value):
        misfit = _read_misfit(fields, schemas, item, path)
        if misfit is not None:
            problems.append(((index,), f"{misfit[0]} ({consequence}){misfit[1]}"))
    if problems and whole_fits:  # `expected` of a list field, written as a bare list
        return [
            (
                (),
                "a list in `expected` means one of its items; to expect this list itself, "
                f"wrap it in another list: [{json.dumps(value, ensure_ascii=False)}]",
            )
        ]
    return problems


def _read_misfit(
    fields: _Fields, schemas: list[Any], value: Any, path: str
) -> tuple[str, str] | None:
    """`_Fields.misfit`, as the evaluator compares: a number also matches a text writing it.

    An `{approx: ...}` value asks for a number; a number (approx or not) fits a field of
    text too, since "12.50 €" is read as 12.5. A quoted number for a number field is still
    refused, with its hint: test data writes a number as one. A malformed approx is
    `approx_problems`' to say.
    """
    if is_approx_spec(value):
        try:
            value = approx_of(value).expected
        except ValueError:
            return None
    misfit = fields.misfit(schemas, value, path)
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if misfit is not None and is_number and fields.misfit(schemas, str(value), path) is None:
        return None
    return misfit


def approx_problems(
    expected: Mapping[str, Any] | None, attack_target: Mapping[str, Any] | None
) -> list[tuple[Loc, str]]:
    """Every `{approx: ...}` value that is not a number with non-negative bounds, located."""
    found: list[tuple[Loc, str]] = []
    for section, assertions in (("expected", expected), ("attack_target", attack_target)):
        for name, raw in (assertions or {}).items():
            items = list(enumerate(raw)) if isinstance(raw, list) else [(None, raw)]
            for index, value in items:
                if not is_approx_spec(value):
                    continue
                try:
                    approx_of(value)
                except ValueError as exc:
                    at = (section, str(name)) if index is None else (section, str(name), index)
                    found.append((at, str(exc)))
    return found
