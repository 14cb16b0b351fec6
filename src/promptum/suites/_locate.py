"""Turning a validation problem into a message that names the file, line, column and field."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from promptum.errors import ConfigError

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
    """One line of an error report: where, which field, what is wrong."""
    field_path = format_loc(locator.base + tuple(loc))
    return f"{locator.at(loc)}: {field_path}: {message}"


def problems_error(problems: Sequence[str]) -> ConfigError:
    """One ConfigError listing every problem found."""
    shown = list(problems[:_MAX_SHOWN])
    if len(problems) > _MAX_SHOWN:
        shown.append(f"... and {len(problems) - _MAX_SHOWN} more problems")
    noun = "problem" if len(problems) == 1 else "problems"
    return ConfigError(f"{len(problems)} {noun} found:\n" + "\n".join(shown))


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
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None:
            return None
        if isinstance(part, int):
            continue
        info = current.model_fields.get(part)
        if info is None:
            return None
        found = _models_in(info.annotation)
        current = found[0] if found else None
    return current


def _data_loc(data: Any, loc: Loc) -> Loc:
    """Keep the parts of a pydantic error path that exist in the data (drop union tags)."""
    kept: list[str | int] = []
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        in_mapping = isinstance(data, Mapping) and part in data
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if in_mapping or in_list:
            data = data[part]
        elif not last:
            continue
        kept.append(part)
    return tuple(kept)


def _describe(model: type[BaseModel], loc: Loc, error: Any) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        allowed = sorted(parent.model_fields) if parent is not None else []
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        listing = f" Allowed keys: {', '.join(allowed)}." if allowed else ""
        return f"unknown key {loc[-1]!r}.{hint}{listing}"
    if kind == "missing":
        return "this key is required"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        # pydantic's own words name internal classes ("instance of CaseFields").
        expected = _model_at(model, loc)
        keys = f" with keys such as {', '.join(sorted(expected.model_fields))}" if expected else ""
        return f"must be a mapping{keys} (got {_shown(error.get('input'))})"
    message = str(error["msg"]).removeprefix("Value error, ")
    if "input" in error and kind not in ("value_error",):
        message += f" (got {_shown(error['input'])})"
    return message


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:59] + "…"


def validation_problems(
    locator: Locator, model: type[BaseModel], data: Any, error: ValidationError
) -> list[str]:
    """Every error of a pydantic validation of `data`, located in the file."""
    problems = []
    for item in error.errors(include_url=False):
        loc = _data_loc(data, tuple(item["loc"]))
        problems.append(problem(locator, loc, _describe(model, loc, item)))
    return problems
