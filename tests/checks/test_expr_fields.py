"""In an expression a mapping's `.name` is its field `name`, never a method of the same name.

`json.items` of the answer `{"items": []}` is the empty list, not `dict.items`; so are
`json.values`, `json.keys`, `json.get`..., of `vars` and `tokens` too, and of mappings within
them. A field that is not there is an error grade naming it and the fields there are, unless
the expression only asks whether it is there (`is defined`, `| default`). Calling one
(`vars.get('limit', 10)`) still calls the mapping's method; lists and text keep theirs.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from promptum.cases import TestCase
from promptum.checks import CheckDefinition, check_grades
from promptum.runner import grade
from promptum.suites import load_suite
from promptum.values.completion import Completion
from promptum.values.grade import Grade

EMPTY_ITEMS = Completion(text='{"items": [], "total": 0}')
ORDER = Completion(
    text=json.dumps({"order": {"items": [{"sku": "a"}, {"sku": "b"}], "total": 3}, "n": 1})
)


def graded(completion: Completion, expression: str) -> Grade:
    definition = CheckDefinition.model_validate({"type": "expr", "value": expression})
    (only,) = check_grades([definition], completion)
    return only


def test_json_items_is_the_field_not_the_dict_method() -> None:
    # Before: `json.items` was `dict.items`, never equal to [], so this passed.
    assert graded(EMPTY_ITEMS, "json.items != []").failed
    assert graded(EMPTY_ITEMS, "json.items == []").passed
    assert graded(EMPTY_ITEMS, "json.items | length == 0").passed


@pytest.mark.parametrize(
    "name", ["items", "values", "keys", "get", "pop", "copy", "update", "setdefault", "clear"]
)
def test_every_name_of_a_dict_method_is_a_field(name: str) -> None:
    answer = Completion(text=json.dumps({name: [1, 2]}))
    assert graded(answer, f"json.{name} == [1, 2]").passed
    assert graded(answer, f"json.{name} | sum == 3").passed
    missing = graded(EMPTY_ITEMS if name != "items" else Completion(text="{}"), f"json.{name}")
    assert missing.error is not None
    assert f"json has no field '{name}'" in missing.error
    assert "built-in method" not in missing.error


def test_a_missing_field_is_an_error_grade_naming_it_and_the_fields_there() -> None:
    result = graded(EMPTY_ITEMS, "json.itemz != []")
    assert (result.passed, result.reason) == (False, None)
    assert result.error == (
        "expr `json.itemz != []` failed: json has no field 'itemz' (fields: items, total)"
    )


def test_nested_mappings_read_their_fields_and_name_the_missing_one_by_its_path() -> None:
    assert graded(ORDER, "json.order.items | length == 2").passed
    assert graded(ORDER, "json.order.items[1].sku == 'b'").passed
    assert graded(ORDER, "json.order.items | map(attribute='sku') | join == 'ab'").passed
    missing = graded(ORDER, "json.order.itemz | length == 2")
    assert missing.error is not None
    assert missing.error.endswith("json.order has no field 'itemz' (fields: items, total)")
    deeper = graded(ORDER, "json.order.items[0].price > 1")
    assert deeper.error is not None
    assert deeper.error.endswith("json.order.items[0] has no field 'price' (fields: sku)")


def test_a_subscript_reads_the_field_too() -> None:
    assert graded(EMPTY_ITEMS, "json['items'] == []").passed
    assert graded(EMPTY_ITEMS, "json['total'] == 0").passed
    missing = graded(EMPTY_ITEMS, "json['values'] == []")
    assert missing.error is not None
    assert missing.error.endswith("json has no field 'values' (fields: items, total)")


def test_a_key_computed_from_the_answer_reads_a_field_and_no_attribute() -> None:
    for key in ("__class__", "items", "get", "__init__"):
        answer = Completion(text=json.dumps({"key": key, "items": []}))
        result = graded(answer, "json[json.key]")
        if key == "items":
            assert result.error is not None
            assert "gave list []" in result.error
        else:
            assert result.error is not None
            assert f"json has no field '{key}' (fields: items, key)" in result.error


def test_a_missing_item_or_a_field_of_what_is_not_a_mapping_says_what_it_is() -> None:
    empty = graded(EMPTY_ITEMS, "json.items[0] == 1")
    assert empty.error is not None
    assert empty.error.endswith("json.items has no item 0 (it has 0)")
    text = graded(Completion(text="plain words"), "json.status == 'ok'")
    assert text.error is not None
    assert text.error.endswith("json is none, which has no field 'status'")
    listed = graded(EMPTY_ITEMS, "json.items.first == 1")
    assert listed.error is not None
    assert listed.error.endswith("json.items is a list, which has no field 'first'")


@pytest.mark.parametrize(
    "expression",
    [
        "json | length == 2",
        'json | tojson == \'{"items": [], "total": 0}\'',
        "'items' in json and 'values' not in json",
        "json | items | list == [('items', []), ('total', 0)]",
        "(json | dictsort | first)[0] == 'items'",
        "json | list == ['items', 'total']",
        "json is mapping and json.items is sequence",
        "json == {'items': [], 'total': 0}",
        "json.items | length == json.total",
        "[json] | map(attribute='total') | first == 0",
        "[json] | selectattr('total', 'eq', 0) | list | length == 1",
        "{'a': {'b': 2}}.a.b == 2",
        # A called name is the mapping's method.
        "json.get('items') == [] and json.get('missing', 5) == 5",
        "json.keys() | list == ['items', 'total']",
        "json.values() | list == [[], 0]",
        "json.items() | list == [('items', []), ('total', 0)]",
    ],
)
def test_filters_tests_and_method_calls_see_real_mappings(expression: str) -> None:
    result = graded(EMPTY_ITEMS, expression)
    assert (result.passed, result.error) == (True, None)


def test_an_attribute_lookup_of_a_filter_does_not_fall_back_to_a_method() -> None:
    # `map(attribute='values')` of mappings without the field is undefined, not dict.values.
    expression = "[json] | map(attribute='values') | first is defined"
    result = graded(EMPTY_ITEMS, expression)
    assert (result.passed, result.reason) == (False, f"`{expression}` was false")


@pytest.mark.parametrize(
    "expression",
    [
        "json.missing is not defined",
        "not (json.missing is defined)",
        "json.missing | default(7) == 7",
        "json.missing | d(7) == 7",
        "json.order.total is not defined",  # a missing field, and one of it
        "json.items is defined and json['total'] is defined",
    ],
)
def test_asking_whether_a_field_is_there_is_no_error(expression: str) -> None:
    result = graded(EMPTY_ITEMS, expression)
    assert (result.passed, result.error) == (True, None)


def test_lists_and_text_keep_their_methods() -> None:
    answer = Completion(text='{"tags": ["a", "b", "a"], "name": " Ahoy "}')
    assert graded(answer, "json.tags.count('a') == 2 and json.tags.index('b') == 1").passed
    assert graded(answer, "json.name.strip().lower() == 'ahoy'").passed
    assert graded(answer, "output.startswith('{')").passed


def case_with(tmp_path: Path, checks: str) -> TestCase:
    """A case with `vars` topic and items, and `checks` (YAML list items)."""
    path = tmp_path / "suite.yaml"
    suite = """\
        models: [openai/gpt-4o-mini]
        vars: {topic: rome, items: [1, 2]}
        test_cases:
          - id: a
            query: hi
            checks:
        """
    path.write_text(textwrap.dedent(suite) + textwrap.indent(checks, " " * 6), encoding="utf-8")
    (case,) = load_suite(path).cases
    return case


def test_vars_and_tokens_read_their_fields_too(tmp_path: Path) -> None:
    case = case_with(
        tmp_path,
        '- {type: expr, value: "vars.items == [1, 2] and vars.items | sum == 3"}\n'
        "- {type: expr, value: \"vars.get('limit', 10) == 10 and vars['topic'] == 'rome'\"}\n"
        '- {type: expr, value: "vars.limit | default(10) == 10"}\n'
        '- {type: expr, value: "tokens.total == 5 and tokens | length == 3"}\n',
    )
    answer = Completion(text="x", input_tokens=2, output_tokens=3)
    assert [(g.passed, g.error) for g in grade(case, answer)] == [(True, None)] * 4


def test_a_transform_gives_the_field_not_the_method(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    suite = """\
        models: [openai/gpt-4o-mini]
        test_cases:
          - id: a
            query: hi
            transform: json.items
            checks:
              - {type: exact_match, value: "[1, 2]"}
              - {type: expr, value: "json == [1, 2]"}
          - id: b
            query: hi
            transform: json.values
            checks:
              - {type: contains, value: "x"}
        """
    path.write_text(textwrap.dedent(suite), encoding="utf-8")
    first, second = load_suite(path).cases
    answer = Completion(text='{"items": [1, 2]}')
    assert [(g.passed, g.error) for g in grade(first, answer)] == [(True, None)] * 2
    (failed,) = grade(second, answer)
    assert failed.error == (
        "transform `json.values` failed: json has no field 'values' (fields: items)"
    )
