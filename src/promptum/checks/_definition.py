"""`CheckDefinition`: one entry of a test case's `checks:` list, validated when loaded."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationInfo,
    model_validator,
)

from promptum.checks._base import CheckType, CompiledCheck, ScoredCheckType, ValueKind
from promptum.checks._leaks import bound_canary
from promptum.checks._python import FOLDER, python_function
from promptum.checks._registry import CHECK_TYPES, get_check_type, is_written_by_user
from promptum.checks._transform import Transform, with_transform
from promptum.validation import bounded_search
from promptum.values.metrics import MetricName


def _checked_value(check_type: CheckType, value: Any) -> Any:
    """Return `value` if it suits `check_type`, else raise ValueError saying what would."""
    name = check_type.name
    kind = check_type.value
    if kind is ValueKind.NONE:
        if value is not None:
            raise ValueError(f"check {name!r} takes no value; remove `value`")
        return None
    if kind is ValueKind.OPTIONAL:
        return value
    if value is None:
        raise ValueError(f"check {name!r} needs a `value`: {kind.value}")
    if kind is ValueKind.ANY:
        return value
    if kind is ValueKind.STRING:
        return _checked_string(name, value)
    return _checked_number(name, kind, value)


def _checked_string(name: str, value: Any) -> str:
    """Return `value` if it is a string check `name` can search for, else raise ValueError."""
    if not isinstance(value, str):
        raise ValueError(
            f"check {name!r} needs a string value, got {type(value).__name__} {value!r}; "
            "quote it in YAML"
        )
    if not value and name in ("contains", "not_contains"):
        raise ValueError(f"check {name!r} needs a non-empty string")
    if name in ("regex", "not_regex"):
        import regex

        if "\b" in value:
            # YAML's double quotes and Python's plain strings read `\b` as a backspace: the
            # pattern then never matches, where a word boundary was meant.
            raise ValueError(
                f"check {name!r}: the pattern {value!r} holds a backspace character, which "
                "`\\b` in double quotes is; write the pattern in single quotes in YAML "
                "('\\b4\\b') or as a raw string in Python (r\"\\b4\\b\") for a word boundary"
            )
        try:
            bounded_search(value)  # compiled by the engine the check searches with
        except regex.error as exc:
            raise ValueError(
                f"check {name!r}: invalid regular expression {value!r}: {exc}"
            ) from exc
    return value


def _checked_number(name: str, kind: ValueKind, value: Any) -> int | float:
    """Return `value` as the finite, non-negative number `kind` asks for, else raise ValueError."""
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if not is_number or not math.isfinite(value) or value < 0:
        raise ValueError(f"check {name!r} needs {kind.value}, got {value!r}")
    if kind is ValueKind.INTEGER:
        if value != int(value):
            raise ValueError(f"check {name!r} needs {kind.value}, got {value!r}")
        return int(value)
    return float(value)


def _compiled_value(check_type: CheckType, value: Any, context: Any) -> Any:
    """The value a check of `check_type` is built with: `value` checked, or what it names."""
    if check_type.value is ValueKind.FUNCTION:
        # Imported now, relative to the suite's folder when the loader gives it.
        return python_function(value, context)
    if check_type.value is ValueKind.CANARY:
        return bound_canary(value, context)
    return _checked_value(check_type, value)


SHARED = "shared checks"
"""The validation-context key of a `CheckTable`: identical checks validated with it are one."""

_SCALARS = (str, int, float, bool, type(None))


def _frozen(value: Any) -> Hashable:
    """`value` as a hashable key that tells apart what compares equal (1, 1.0, True)."""
    if isinstance(value, dict):
        return dict, tuple((_frozen(key), _frozen(item)) for key, item in value.items())
    if isinstance(value, list):
        return list, tuple(_frozen(item) for item in value)
    if type(value) in _SCALARS:
        return type(value), value
    raise TypeError(type(value).__name__)  # e.g. a date: checked, but not shared


class CheckTable:
    """The checks one load has compiled, by their written definition, most recent first.

    Thousands of cases often repeat the same few checks; compiled once, they are one
    object in every case. Bounded, because rows read lazily may each bring a check of
    their own (a `columns:` cell) that no other row shares.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._checks: OrderedDict[Hashable, CheckDefinition] = OrderedDict()

    def get(self, key: Hashable) -> CheckDefinition | None:
        """The check compiled from the definition `key`, if it is still held."""
        check = self._checks.get(key)
        if check is not None:
            self._checks.move_to_end(key)
        return check

    def put(self, key: Hashable, check: CheckDefinition) -> None:
        """Hold `check` as the one compiled from `key`, dropping the least recent past the size."""
        self._checks[key] = check
        if len(self._checks) > self.size:
            self._checks.popitem(last=False)


class CheckDefinition(BaseModel):
    """A deterministic check: its `type`, its `value` and, for string checks, case folding."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str
    value: Any = None
    case_insensitive: bool = False
    threshold: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False, strict=True)
    """For scoring checks (`similar`, `python`, registered ones): the score, 0-1, at or above
    which the check passes."""
    model: str | None = None
    """For `similar`: the embedding model, ``<endpoint>/<model>`` (default: the embedded one)."""
    metric: MetricName | None = None
    """The metric the check's grade is counted under in reports (docs/metrics.md)."""
    weight: float | None = Field(default=None, ge=0, allow_inf_nan=False, strict=True)
    """The grade's weight in its case's score under a case `threshold:` (default 1)."""
    transform: Transform | None = None
    """A Jinja expression whose value this check sees instead of the response
    (docs/expressions.md)."""

    _compiled: CompiledCheck = PrivateAttr()
    _compiled_from: tuple[Any, ...] | None = PrivateAttr(None)
    """The definition `_compiled` was built from: a copy made with other values differs."""

    @model_validator(mode="after")
    def _compile(self, info: ValidationInfo) -> CheckDefinition:
        check_type = get_check_type(self.type)
        value = _compiled_value(check_type, self.value, info.context)
        if self.case_insensitive and not check_type.string_check:
            raise ValueError(
                f"check {self.type!r}: case_insensitive applies only to string checks "
                f"({', '.join(t.name for t in CHECK_TYPES.values() if t.string_check)})"
            )
        if isinstance(check_type, ScoredCheckType) and check_type.build_scored is not None:
            self._compiled = self._scored(check_type, check_type.build_scored, value)
        elif self.threshold is not None or self.model is not None:
            raise self._scoring_field_error()
        else:
            self._compiled = check_type.build(value, self.case_insensitive)
        self._compiled_from = self._key()
        return self

    def _scored(
        self,
        check_type: ScoredCheckType,
        build: Callable[[Any, float, str | None], CompiledCheck],
        value: Any,
    ) -> CompiledCheck:
        """The scoring check built at its threshold, once its `model` is one it takes."""
        if self.model is not None:
            check_model = check_type.check_model
            problem = check_model(self.model) if check_model else "it takes no model"
            if problem is not None:
                raise ValueError(f"check {self.type!r}: {problem}")
        threshold = check_type.default_threshold if self.threshold is None else self.threshold
        return build(value, threshold, self.model)

    def _scoring_field_error(self) -> ValueError:
        """Why this check, which scores nothing, cannot take its `threshold` (or `model`)."""
        scoring = [
            t
            for t in CHECK_TYPES.values()
            if isinstance(t, ScoredCheckType) and not is_written_by_user(t.name)
        ]
        if self.threshold is not None:
            return ValueError(
                f"check {self.type!r}: threshold applies only to scoring checks "
                f"({', '.join(t.name for t in scoring)}) and to the checks you write "
                "(python, registered types)"
            )
        modelled = ", ".join(t.name for t in scoring if t.check_model is not None)
        return ValueError(
            f"check {self.type!r}: model applies only to checks with a model ({modelled})"
        )

    @model_validator(mode="after")
    def _transformed(self) -> CheckDefinition:
        # Declared after `_compile`, so it runs after it: the compiled check, wrapped.
        if self.transform is not None:
            self._compiled = with_transform(self._compiled, self.transform, self.type)
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _shared(
        cls, data: Any, handler: ModelWrapValidatorHandler[Self], info: ValidationInfo
    ) -> Self:
        # Declared after `_compile`, so it wraps it: a check found here is not compiled again.
        # A check is a pure function of its definition (and of the folder a `python` check
        # is imported from), so an identical one already compiled with this table is reused.
        if isinstance(data, cls):
            # Compiled when it was made: an after-validator would compile it again. Not so a
            # copy with other values (`model_copy(update=...)`) or one never validated.
            private = data.__pydantic_private__ or {}
            return data if private.get("_compiled_from") == data._key() else handler(data)
        context = info.context
        if not isinstance(context, dict) or not isinstance(data, dict):
            return handler(data)
        table = context.get(SHARED)
        if not isinstance(table, CheckTable):
            return handler(data)
        try:
            key = (_frozen(data), str(context.get(FOLDER)))
        except TypeError:
            return handler(data)
        found = table.get(key)
        if isinstance(found, cls):  # a subclass's definitions are never shared with ours
            return found
        check = handler(data)
        table.put(key, check)
        return check

    def __eq__(self, other: object) -> bool:
        # The compiled check is a fresh closure per instance: compare what was declared.
        if not isinstance(other, CheckDefinition):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        return (
            self.type,
            self.value,
            self.case_insensitive,
            self.threshold,
            self.model,
            self.metric,
            self.weight,
            self.transform,
        )

    @property
    def compiled(self) -> CompiledCheck:
        """The check, ready to run on a completion."""
        # Read the private slot directly: pydantic's __getattr__ route costs ~1 µs per check.
        compiled: CompiledCheck = self.__pydantic_private__["_compiled"]  # type: ignore[index]
        return compiled
