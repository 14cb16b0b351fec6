"""Finding the JSON object in a response and checking it against the schema."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptum.providers._structured import (
    SchemaMismatch,
    extract_json_object,
    parse_structured,
    schema_problem,
)

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Ada", "age": 36}',
        '  \n{"name": "Ada", "age": 36}\n',
        'Here you go:\n```json\n{"name": "Ada", "age": 36}\n```\nAnything else?',
        '```\n{"name": "Ada", "age": 36}\n```',
        'The answer is {"name": "Ada", "age": 36} as requested.',
        'Example: {"name": "x"}. Answer: {"name": "Ada", "age": 36}',
    ],
)
def test_the_fitting_object_is_found(text: str) -> None:
    assert parse_structured(text, SCHEMA) == {"name": "Ada", "age": 36}


def test_no_object_at_all() -> None:
    with pytest.raises(SchemaMismatch, match="the response is not a JSON object: 'Ada is 36'"):
        parse_structured("Ada is 36", SCHEMA)


def test_a_json_array_is_not_an_object() -> None:
    with pytest.raises(SchemaMismatch, match="not a JSON object"):
        parse_structured("[1, 2]", SCHEMA)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"name": "Ada"}', "at the top level: 'age' is a required property"),
        ('{"name": "Ada", "age": -1}', "at $.age: -1 is less than the minimum of 0"),
        ('{"name": 7, "age": 3}', "at $.name: 7 is not of type 'string'"),
    ],
)
def test_a_misfit_says_where_and_why(text: str, message: str) -> None:
    with pytest.raises(SchemaMismatch) as caught:
        parse_structured(text, SCHEMA)
    assert str(caught.value) == f"the response does not fit the schema {message}"


def test_an_invalid_schema_is_reported() -> None:
    problem = schema_problem({"type": "objekt"})
    assert problem is not None
    assert problem.startswith("the response schema is not a valid JSON Schema: 'objekt'")
    assert schema_problem(SCHEMA) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=4), st.text(max_size=20))
def test_an_object_after_prose_is_extracted(obj: dict[str, object], prose: str) -> None:
    import json

    prose = prose.replace("{", "(").replace("}", ")")
    assert extract_json_object(f"{prose}\n{json.dumps(obj)}") == obj


def test_json_nested_deeper_than_python_recurses_is_a_misfit() -> None:
    deep = '{"a": ' * 100_000 + "1" + "}" * 100_000
    with pytest.raises(SchemaMismatch, match="nests JSON too deeply"):
        parse_structured(deep, {"type": "object"})
