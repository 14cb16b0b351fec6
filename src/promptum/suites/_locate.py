"""Turning a validation problem into a message that names the file, line, column and field."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from promptum.errors import ConfigError
from promptum.foundations.suggestions import did_you_mean

Loc = tuple[str | int, ...]

_MAX_SHOWN = 20


@dataclass(frozen=True, slots=True)
class Position:
    """A 1-based line and column in a file."""

    line: int
    column: int | None = None


@dataclass(slots=True)
class Locator:
    """Knows where each field path of a parsed document starts in its file."""

    path: Path
    positions: dict[Loc, Position] = field(default_factory=dict)
    base: Loc = ()
    """Prefix added to every path looked up, for a part of a document (one case of a suite)."""
    rest: Callable[[], None] | None = None
    """Adds the positions of every other path to `positions`; called the first time a
    path is missing, since only a problem looks one up (a large suite keeps only a few)."""

    def _position(self, loc: Loc) -> Position | None:
        """The position of `loc`, or of the nearest enclosing path the file has."""
        full = self.base + tuple(loc)
        if full not in self.positions and self.rest is not None:
            self.rest()
        for end in range(len(full), -1, -1):
            position = self.positions.get(full[:end])
            if position is not None:
                return position
        return None

    def at(self, loc: Loc) -> str:
        """Return ``file:line:column`` of `loc` (as much of it as is known)."""
        position = self._position(loc)
        if position is None:
            return str(self.path)
        column = f":{position.column}" if position.column else ""
        return f"{self.path}:{position.line}{column}"

    def line(self, loc: Loc = ()) -> str:
        """Return ``file:line`` of `loc`, for a result's `source`."""
        position = self._position(loc)
        return str(self.path) if position is None else f"{self.path}:{position.line}"

    def within(self, loc: Loc) -> Locator:
        """A locator for the part of the document at `loc`."""
        return Locator(self.path, self.positions, self.base + tuple(loc), self.rest)


def format_loc(loc: Iterable[str | int]) -> str:
    """Render a field path the way a user writes it: ``test_cases[2].checks[0].type``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(top level)"


def problem(locator: Locator, loc: Loc, message: str) -> str:
    """One line of an error report: where, which field (if any: a CSV row has none), what."""
    path = locator.base + tuple(loc)
    if not path:  # a whole row, file or document: its line says where
        return f"{locator.at(loc)}: {message}"
    return f"{locator.at(loc)}: {format_loc(path)}: {message}"


_WHERE = re.compile(r"(.*?):(\d+)(?::(\d+))?: ")


def in_line_order(problems: Sequence[str]) -> list[str]:
    """The problems by file (in order of first mention), then line and column."""
    files: dict[str, int] = {}

    def key(text: str) -> tuple[int, int, int]:
        found = _WHERE.match(text)
        if found is None:  # no line: the file as a whole, before its lines
            return files.setdefault(text.partition(": ")[0], len(files)), 0, 0
        path, line, column = found.groups()
        return files.setdefault(path, len(files)), int(line), int(column or 0)

    keys = [key(text) for text in problems]  # first mentions in the order found
    return [text for _, text in sorted(zip(keys, problems, strict=True), key=lambda p: p[0])]


_LINES_NAMED = 5
"""The other lines a repeated problem names, before it only counts them."""


def said_once(problems: Sequence[str]) -> list[str]:
    """The problems, each said once per file, naming the other lines it is repeated at.

    A suite's prompt that fails fails for every row of a data file: one line, not a million.
    """
    first: dict[tuple[str, str], int] = {}
    others: dict[int, list[str]] = {}
    kept: list[str] = []
    for text in problems:
        found = _WHERE.match(text)
        if found is not None:
            what = (found.group(1), text[found.end() :])
            if what in first:
                others.setdefault(first[what], []).append(found.group(2))
                continue
            first[what] = len(kept)
        kept.append(text)
    for index, lines in others.items():
        named = ", ".join(lines[:_LINES_NAMED]) + (", ..." if len(lines) > _LINES_NAMED else "")
        kept[index] += f" (the same at {len(lines)} more line{'s' * (len(lines) > 1)}: {named})"
    return kept


def problems_error(problems: Sequence[str]) -> ConfigError:
    """One ConfigError listing every problem found, in line order, each said once."""
    count = len(problems)
    problems = said_once(in_line_order(problems))
    shown = list(problems[:_MAX_SHOWN])
    if len(problems) > _MAX_SHOWN:
        shown.append(f"... and {len(problems) - _MAX_SHOWN} more problems")
    noun = "problem" if count == 1 else "problems"
    return ConfigError(f"{count} {noun} found:\n" + "\n".join(shown))


def raise_problems(problems: Sequence[str]) -> None:
    """Raise one ConfigError listing every problem found, if any."""
    if problems:
        raise problems_error(problems)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if get_origin(annotation) in (Union, list, dict) or get_args(annotation):
        return [m for arg in get_args(annotation) for m in _models_in(arg)]
    return []


def _model_at(model: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The pydantic model that describes the mapping at `loc`, if any."""
    return _walked(model, loc)[0]


def _walked(model: type[BaseModel], loc: Loc) -> tuple[type[BaseModel] | None, bool]:
    """The pydantic model met at `loc`, and whether `loc` is a mapping of names to it."""
    current: type[BaseModel] | None = model
    keyed = False  # the part is a key of a mapping of models (`endpoints: {name: ...}`)
    for part in loc:
        if current is None:
            return None, False
        if isinstance(part, int) or keyed:
            keyed = False
            continue
        info = current.model_fields.get(part)
        if info is None:
            return None, False
        found = _models_in(info.annotation)
        current = found[0] if found else None
        keyed = _is_mapping(info.annotation)
    return current, keyed


def _is_mapping(annotation: Any) -> bool:
    """Whether `annotation` is a dict (or an optional one): its keys are names, not fields."""
    if get_origin(annotation) is dict:
        return True
    return get_origin(annotation) is Union and any(map(_is_mapping, get_args(annotation)))


def _data_loc(data: Any, loc: Loc) -> Loc:
    """Keep the parts of a pydantic error path that exist in the data (drop union tags)."""
    kept: list[str | int] = []
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        in_mapping = isinstance(data, Mapping) and part in data
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if in_mapping or in_list:
            data = data[part]
        elif not last or not isinstance(data, Mapping | list):
            continue  # a union's tag, or a part of a value that is neither (`target.str`)
        kept.append(part)
    return tuple(kept)


def _describe(model: type[BaseModel], loc: Loc, error: Any) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        allowed = _keys(parent)
        hint = did_you_mean(str(loc[-1]), allowed)
        listing = f" Allowed keys: {', '.join(allowed)}." if allowed else ""
        return f"unknown key {loc[-1]!r}.{hint}{listing}"
    if kind == "missing":
        return "this key is required"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        # pydantic's own words name internal classes ("instance of CaseFields").
        expected, named = _walked(model, loc)
        got = _shown(error.get("input"))
        if named:  # `endpoints:`, `prompts:`: the keys are the user's names
            return f"must be a mapping of names (`{loc[-1]}: {{NAME: ...}}`) (got {got})"
        keys = f" with keys such as {', '.join(_keys(expected))}" if expected else ""
        return f"must be a mapping{keys} (got {got})"
    message = str(error["msg"]).removeprefix("Value error, ")
    if "input" in error and kind not in ("value_error",):
        message += f" (got {_shown(error['input'])})"
    if kind == "list_type" and loc and isinstance(error.get("input"), Mapping):
        message += f"; write it as a list (`{loc[-1]}: [{{...}}]`), one item per entry"
    return message


def _keys(model: type[BaseModel] | None) -> list[str]:
    """The keys a file may write for `model`: not one kept out of it (`api_key`)."""
    fields = model.model_fields if model is not None else {}
    return sorted(name for name, info in fields.items() if not info.exclude)


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:59] + "…"


def validation_problems(
    locator: Locator, model: type[BaseModel], data: Any, error: ValidationError
) -> list[str]:
    """Every error of a pydantic validation of `data`, located in the file."""
    located = [
        (_data_loc(data, tuple(item["loc"])), item) for item in error.errors(include_url=False)
    ]
    inside = [loc for loc, item in located if not _is_type_error(item)]
    said: dict[Loc, list[str]] = {}
    wrong_type: dict[Loc, list[Any]] = {}  # one value's type errors: a union's every branch
    for loc, item in located:
        if not _is_type_error(item):
            said.setdefault(loc, []).append(_describe(model, loc, item))
        elif not _went_inside(_value_loc(data, loc), inside):
            said.setdefault(loc, [])
            wrong_type.setdefault(loc, []).append(item)
    for loc, items in wrong_type.items():
        said[loc].append(
            _describe(model, loc, items[0]) if len(items) == 1 else _expected(model, loc, items)
        )
    return [problem(locator, loc, text) for loc, messages in said.items() for text in messages]


_EXPECTED = {
    "string_type": "text",
    "list_type": "a list",
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
}
"""A type error's kind as what the value must be, for a value no branch of a union took."""


def _expected(model: type[BaseModel], loc: Loc, items: Sequence[Any]) -> str:
    """One problem for a value that fits none of a union's types: each type it may be."""
    expected: list[str] = []
    for item in items:
        if item["type"] in _EXPECTED:
            expected.append(_EXPECTED[item["type"]])
        else:  # a mapping's own words: "must be a mapping with keys such as ... (got ...)"
            expected.append(_describe(model, loc, item).removeprefix("must be ").split(" (got ")[0])
    given = items[0].get("input")
    quote = "; quote it to make it text" if "text" in expected and _scalar(given) else ""
    return f"must be {' or '.join(dict.fromkeys(expected))} (got {_shown(given)}){quote}"


def _scalar(value: Any) -> bool:
    """Whether YAML read `value` from an unquoted scalar that, quoted, would be text."""
    return isinstance(value, int | float | bool) or value is None


def _is_type_error(item: Any) -> bool:
    return str(item["type"]).endswith("_type")


def _value_loc(data: Any, loc: Loc) -> Loc:
    """Where the value of an error is: its loc less a trailing union tag (`target.str`)."""
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return loc[:-1]  # `_data_loc` keeps only a last part that is not in the data
    return loc


def _went_inside(value: Loc, inside: list[Loc]) -> bool:
    """Whether a union branch found problems inside the value, so the value has its type.

    Then the other branches' type errors (a mapping "should be a valid string") are noise
    beside the real problem.
    """
    return any(len(loc) > len(value) and loc[: len(value)] == value for loc in inside)
