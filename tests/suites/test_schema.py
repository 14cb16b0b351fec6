"""The JSON Schema of the suite format accepts what loads and rejects what does not."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from promptum.checks import CHECK_TYPES
from promptum.suites import suite_json_schema

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = suite_json_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_suite_is_valid(
    validator: jsonschema.protocols.Validator, path: Path
) -> None:
    validator.validate(yaml.safe_load(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "document",
    [
        {"test_cases": [{"id": "a", "querry": "typo"}]},
        {"test_cases": [{"id": "a", "query": "q", "checks": [{"type": "contian"}]}]},
        {"defualts": {}},
        {"judge": {"threshold": 2}},
        {"repeat": 0},
    ],
)
def test_invalid_documents_are_rejected(
    validator: jsonschema.protocols.Validator, document: dict[str, object]
) -> None:
    assert not validator.is_valid(document)


def test_check_types_are_enumerated() -> None:
    check = suite_json_schema()["$defs"]["CheckDefinition"]
    assert check["properties"]["type"]["enum"] == list(CHECK_TYPES)
