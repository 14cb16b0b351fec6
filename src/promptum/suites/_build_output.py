"""The expectations and output stages of building a case: what its response must be.

The expectations are what a case asserts of the response (`expected_behavior`, the field
assertions `expected` and `attack_target`); the output is the shape it asks for
(`response_model`, `transform`). The field assertions are checked against that shape.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel

from promptum.foundations.user_code import import_referenced
from promptum.suites._assertion_fields import (
    approx_problems,
    assertion_problems,
    assertion_schema,
)
from promptum.suites._build_render import CaseScope, Problems, filled_in
from promptum.suites._format import CaseFields, DefaultsSpec
from promptum.suites._locate import Loc
from promptum.validation import compiled_schema


class Expectations(NamedTuple):
    """What a case asserts of its response, rendered with its vars."""

    behavior: str | None
    """The `expected_behavior` a judge grades against."""
    expected: Any
    attack_target: Any


def expectations(
    case: CaseFields, defaults: DefaultsSpec, scope: CaseScope
) -> tuple[Expectations, Problems]:
    """The case's expected behaviour and field assertions, their templates filled in."""
    found: Problems = []
    rendered = scope.renderer(found)
    behavior = case.expected_behavior or defaults.expected_behavior
    if behavior is not None:
        behavior = rendered(behavior, ("expected_behavior",))
    # Field assertion values are templates too, as check values are (an attack's target).
    expected = filled_in(case.expected, ("expected",), rendered)
    attack_target = filled_in(case.attack_target, ("attack_target",), rendered)
    return Expectations(behavior, expected, attack_target), found


class Output(NamedTuple):
    """The shape a case asks its response for."""

    written: bool
    """Whether the case (or its suite's defaults) gives a `response_model`."""
    schema: dict[str, Any] | None = None
    model: type[BaseModel] | None = None
    transform: str | None = None

    @property
    def fields(self) -> tuple[dict[str, Any], type[BaseModel] | None] | None:
        """The schema field assertions are checked against, if known before the case runs."""
        # A transform reshapes the output: its fields are known only when it runs.
        if self.schema is None or self.transform is not None:
            return None
        return self.schema, self.model


def output(case: CaseFields, defaults: DefaultsSpec, folder: Path) -> tuple[Output, Problems]:
    """The case's `response_model` (imported or checked) and `transform`."""
    found: Problems = []
    transform = case.transform or defaults.transform
    response_model = case.response_model or defaults.response_model
    if response_model is None:
        return Output(False, transform=transform), found
    try:
        schema, model = structured_output(response_model, folder)
    except ValueError as exc:
        found.append((("response_model",), str(exc)))
        return Output(True, transform=transform), found
    return Output(True, schema, model, transform), found


def assertions_found(expected: Expectations, shape: Output, needs_schema: bool) -> Problems:
    """The field assertions' problems: no structured output, no such field, a bad approx.

    `needs_schema`: no target answers the case (a target's dict answer is structured output).
    """
    found: Problems = approx_problems(expected.expected, expected.attack_target)
    asserted = expected.expected or expected.attack_target
    if asserted and not shape.written and needs_schema:
        at: Loc = ("expected",) if expected.expected else ("attack_target",)
        found.append(
            (at, "field assertions need structured output: add `response_model` to the case")
        )
    fields = shape.fields
    if fields is not None:
        schema = assertion_schema(*fields)
        for loc, message in assertion_problems(schema, expected.expected, expected.attack_target):
            found.append((loc, message))
    return found


def structured_output(
    spec: str | dict[str, Any] | type[BaseModel], folder: Path
) -> tuple[dict[str, Any], type[BaseModel] | None]:
    """The schema (and pydantic model) of a response_model, checked once per distinct spec."""
    if isinstance(spec, type):  # a class given in Python
        return spec.model_json_schema(), spec
    if isinstance(spec, dict):
        return _schema_of(spec), None
    return _model_schema(spec, folder)


def _import_model(reference: str, folder: Path) -> type[BaseModel]:
    """Import ``module:Class`` as a pydantic model, looking beside the suite file too."""
    module_name, _, class_name = reference.partition(":")
    if not module_name or not class_name:
        raise ValueError(
            f"response_model {reference!r} must be `module:Class` (a pydantic model) "
            "or an inline JSON Schema mapping"
        )
    module = import_referenced(module_name, folder, "response_model")
    model = getattr(module, class_name, None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise ValueError(f"{reference!r} is not a pydantic model class")
    return model


def _schema_of(schema: dict[str, Any]) -> dict[str, Any]:
    import jsonschema

    try:
        compiled_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(f"response_model is not a valid JSON Schema: {exc.message}") from exc
    return schema


@lru_cache(maxsize=64)
def _model_schema(reference: str, folder: Path) -> tuple[dict[str, Any], type[BaseModel]]:
    model = _import_model(reference, folder)
    try:
        return model.model_json_schema(), model
    except Exception as exc:  # e.g. a field type that has no JSON Schema
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{reference!r} has no JSON Schema: {reason}") from exc
