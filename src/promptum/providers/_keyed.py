"""Whether each field of a request is in its cache key, declared once on the field.

Each field of `ModelRequest` carries a `Keyed` marker (``Annotated[int | None, Keyed.ALWAYS]``).
The cache key is made from these markers (`not_keyed`, `key_roles`), never from a list of
names: a field without one is refused when its class is made, so a new request parameter
cannot be left out of the key by forgetting a list.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pydantic import BaseModel


class Keyed(Enum):
    """Whether a request's field is in its cache key."""

    ALWAYS = "always"
    WHEN_SET = "when set"
    """Only when not None: keys of requests from before the field existed still hold."""
    NEVER = "never"
    """Never: it does not decide the model's answer (a target's inputs, a conversation's id)."""


@dataclass(frozen=True, slots=True)
class KeyRoles:
    """A request class's fields by how the cache key holds them, made once per class."""

    always: frozenset[str]
    when_set: frozenset[str]
    never: frozenset[str]


_ROLES: dict[type, KeyRoles] = {}


def _marker(cls: type[BaseModel], name: str) -> Keyed:
    markers = [item for item in cls.model_fields[name].metadata if isinstance(item, Keyed)]
    if len(markers) != 1:
        raise TypeError(
            f"{cls.__name__}.{name} does not say whether the cache key holds it: annotate it "
            f"`Annotated[..., Keyed.ALWAYS]` (it decides the answer), `Keyed.WHEN_SET` (only "
            f"when not None, so earlier keys still hold) or `Keyed.NEVER` "
            f"(promptum.providers._keyed)"
        )
    return markers[0]


def key_roles(cls: type[BaseModel]) -> KeyRoles:
    """The fields of request class `cls` by `Keyed`; TypeError naming a field without one."""
    roles = _ROLES.get(cls)
    if roles is None:
        marked = {name: _marker(cls, name) for name in cls.model_fields}
        roles = _ROLES[cls] = KeyRoles(
            *(frozenset(n for n, m in marked.items() if m is kind) for kind in Keyed)
        )
    return roles


def not_keyed(request: BaseModel) -> set[str]:
    """The fields of `request` left out of its cache key (`Keyed`)."""
    roles = key_roles(type(request))
    return {*roles.never, *(name for name in roles.when_set if getattr(request, name) is None)}
