"""What each field of a case is to the code reading cases field by field, declared once.

Each field of `TestCase` (and of `Grading`, the group of fields it holds as `case.grading`)
says in its metadata (`roles`) whether and how the resume fingerprint hashes it (`Hashed`, or
None), whether a data file's row sets it itself (`Role.PER_ROW`), and what a conversation
does with it (`Role.TURN_RESET`, `Role.CONVERSATION_RESET`). The fingerprint, the row copying
and a conversation's cases are made from these declarations (`role_table`, computed once per
class), never from a list of names kept by hand: a field declaring nothing is refused when
its class is made (`declared_roles`), so a new key cannot be half-added. A group's fields
(`Hashed(nested=...)`) are hashed as the case's own keys, so grouping fields changes no
fingerprint.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum, Flag, auto
from operator import attrgetter
from types import MappingProxyType
from typing import Any, TypeVar

_METADATA_KEY = "promptum.roles"

T = TypeVar("T")


class Role(Flag):
    """The roles of a field besides the fingerprint's (which `Hashed` describes)."""

    NONE = 0
    PER_ROW = auto()
    """A data file's row sets it itself: a row copied from its prototype case has its own
    value (the row reader makes it); every field without this role is the prototype's."""
    TURN_RESET = auto()
    """Reset to its default in the case each turn of a conversation is graded as."""
    CONVERSATION_RESET = auto()
    """Reset to its default in the case a conversation's own grades (over every reply, and
    the judge on the transcript) are made with: it grades one reply, or is the script."""


PER_ROW = Role.PER_ROW
TURN_RESET = Role.TURN_RESET
CONVERSATION_RESET = Role.CONVERSATION_RESET
"""The roles by name, as fields declare them: ``roles(TURN_RESET | CONVERSATION_RESET, ...)``."""


class When(Enum):
    """When the fingerprint hashes a field."""

    ALWAYS = "always"
    SET = "set"
    """Only when not its default: a case without it keeps the fingerprint it had before the
    field existed. The usual choice for a new key."""
    READ = "read"
    """Only when an expression of the case (an `expr` check, the transform) reads it."""
    CONVERSATION = "conversation"
    """Only when the case is a conversation and the field is not its default."""


@dataclass(frozen=True, slots=True)
class Hashed:
    """How the resume fingerprint hashes a field: under which key, as what JSON, when."""

    key: str | None = None
    """The key in the case's JSON; None: the field's name."""
    encode: Callable[[Any], Any] | None = None
    """The value as JSON data; None: as it is."""
    each: Callable[[Any], Any] | None = None
    """For a tuple of objects shared by many cases (a suite's default checks): each item as
    JSON data, encoded once per object. Exclusive with `encode`."""
    text: Callable[[Any], str] | None = None
    """The value's JSON text written directly (a row's cost): the same text as `encode`'s."""
    when: When = When.ALWAYS
    nested: type | None = None
    """The value is a group of fields of this class (`declared_roles`): each of them is hashed
    as its own roles say, under its own key among the case's; the group has no key itself."""


HASHED = Hashed()
"""Hashed as it is, under its own name, always."""
HASHED_WHEN_SET = Hashed(when=When.SET)
"""Hashed as it is, under its own name, only when set: what a new key declares."""


@dataclass(frozen=True, slots=True)
class FieldRoles:
    """A field's declared roles (what `roles` puts in its metadata)."""

    role: Role
    hashed: Hashed | None


def roles(role: Role = Role.NONE, *, hashed: Hashed | None) -> Mapping[str, FieldRoles]:
    """A field's metadata declaring its roles: `dataclasses.field(metadata=roles(...))`.

    `hashed` has no default: every field says whether the resume fingerprint hashes it.
    """
    if hashed is not None and hashed.encode is not None and hashed.each is not None:
        raise TypeError("a hashed field is encoded whole (`encode`) or each item (`each`)")
    if hashed is not None and hashed.nested is not None and hashed != nested(hashed.nested):
        raise TypeError("a group of fields is hashed by its fields' roles: `nested(cls)` alone")
    if hashed is not None and hashed.nested is not None and role & Role.PER_ROW:
        raise TypeError("a group of fields is not a row's own (`Role.PER_ROW`)")
    return MappingProxyType({_METADATA_KEY: FieldRoles(role, hashed)})


def nested(cls: type) -> Hashed:
    """How a field holding a group of fields (of class `cls`) is hashed: as its fields say."""
    return Hashed(nested=cls)


UNSET: Any = dataclasses.MISSING
"""The default of a field that has none."""


@dataclass(frozen=True, slots=True)
class HashedField:
    """One field the fingerprint hashes."""

    name: str
    """Its name; in a group of fields, the group's and its own (``grading.checks``)."""
    key: str
    hashed: Hashed
    per_row: bool
    default: Any
    """The field's default (a `default_factory`'s value); `UNSET` when it has none."""
    holder: str
    """The case's field holding it: itself, or its group."""
    get: Callable[[Any], Any]
    """Its value, read from a case (`attrgetter(name)`)."""

    def is_default(self, value: Any) -> bool:
        """Whether `value` is the field's default (never, for a field without one)."""
        return value is self.default or (self.default is not UNSET and value == self.default)

    def hashed_now(self, value: Any) -> bool:
        """Whether a field hashed always or when set is hashed with `value`."""
        return self.hashed.when is not When.SET or not self.is_default(value)


@dataclass(frozen=True, slots=True)
class RoleTable:
    """A class's fields by role, computed once from their metadata (`role_table`)."""

    names: tuple[str, ...]
    """Every field, in order (the order of the class's positional arguments)."""
    per_row: tuple[str, ...]
    """The fields a data file's row sets itself, in order."""
    hashed: tuple[HashedField, ...]
    """The fields the fingerprint hashes, in the order of their keys (the JSON's order); a
    group's fields (`Hashed.nested`) among them, each as the case's own."""
    turn_reset: tuple[tuple[str, Any], ...]
    """(name, default) of each field a conversation's turn resets."""
    conversation_reset: tuple[tuple[str, Any], ...]
    """(name, default) of each field a conversation's own grades reset."""


def _hashed_default(field: dataclasses.Field[Any]) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def _hashed_field(
    cls: type, field: dataclasses.Field[Any], hashed: Hashed, role: Role
) -> HashedField:
    row = Role.PER_ROW in role
    if row and hashed.when in (When.SET, When.CONVERSATION):
        # A data file's rows share the text around their own keys: which keys a row has
        # cannot depend on its own values.
        raise TypeError(
            f"{cls.__name__}.{field.name} is a row's own (`Role.PER_ROW`): hash it always or "
            "when read (`When.ALWAYS`, `When.READ`)"
        )
    key = hashed.key or field.name
    name = field.name
    return HashedField(name, key, hashed, row, _hashed_default(field), name, attrgetter(name))


def _group_fields(cls: type, field: dataclasses.Field[Any], group: type) -> list[HashedField]:
    """The fields of the group `field` holds, hashed as `cls`'s own (`Hashed.nested`)."""
    inner = role_table(group)
    if inner.per_row:
        raise TypeError(
            f"{cls.__name__}.{field.name}: a row's own fields are the case's, not its group's "
            f"({group.__name__}.{inner.per_row[0]} is `Role.PER_ROW`)"
        )
    found = []
    for item in inner.hashed:
        name = f"{field.name}.{item.name}"
        found.append(
            HashedField(
                name, item.key, item.hashed, False, item.default, field.name, attrgetter(name)
            )
        )
    return found


def _default(cls: type, field: dataclasses.Field[Any]) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    raise TypeError(
        f"{cls.__name__}.{field.name} is reset for conversations but has no default "
        "(a default_factory is not shared safely): give it a plain default or drop the reset role"
    )


def _declared(cls: type, field: dataclasses.Field[Any]) -> FieldRoles:
    declared = field.metadata.get(_METADATA_KEY)
    if not isinstance(declared, FieldRoles):
        raise TypeError(
            f"{cls.__name__}.{field.name} declares no roles: give it "
            f"`field(..., metadata=roles(..., hashed=...))` (promptum.cases._roles), saying "
            "whether the resume fingerprint hashes it (`hashed=HASHED_WHEN_SET` for a new key "
            "that decides results, `hashed=None` if it does not) and whether a data row sets "
            "it (`Role.PER_ROW`) or a conversation resets it (`Role.TURN_RESET`, "
            "`Role.CONVERSATION_RESET`)"
        )
    return declared


_TABLES: dict[type, RoleTable] = {}


def role_table(cls: type) -> RoleTable:
    """The fields of dataclass `cls` by role, made once; TypeError if one declares none."""
    table = _TABLES.get(cls)
    if table is None:
        table = _TABLES[cls] = _table(cls)
    return table


def _table(cls: type) -> RoleTable:
    names: list[str] = []
    per_row: list[str] = []
    hashed: list[HashedField] = []
    turn: list[tuple[str, Any]] = []
    conversation: list[tuple[str, Any]] = []
    for field in dataclasses.fields(cls):
        declared = _declared(cls, field)
        names.append(field.name)
        if Role.PER_ROW in declared.role:
            per_row.append(field.name)
        if Role.TURN_RESET in declared.role:
            turn.append((field.name, _default(cls, field)))
        if Role.CONVERSATION_RESET in declared.role:
            conversation.append((field.name, _default(cls, field)))
        if declared.hashed is not None and declared.hashed.nested is not None:
            hashed += _group_fields(cls, field, declared.hashed.nested)
        elif declared.hashed is not None:
            hashed.append(_hashed_field(cls, field, declared.hashed, declared.role))
    keys = [item.key for item in hashed]
    if len(set(keys)) != len(keys):
        twice = sorted({key for key in keys if keys.count(key) > 1})
        raise TypeError(f"{cls.__name__}: two fields are hashed under the key {twice[0]!r}")
    hashed.sort(key=lambda item: item.key)
    return RoleTable(tuple(names), tuple(per_row), tuple(hashed), tuple(turn), tuple(conversation))


def declared_roles(cls: type[T]) -> type[T]:
    """Class decorator: refuse, as the class is made, a field that declares no roles."""
    role_table(cls)
    return cls
