"""`promptum validate` finds every mistake that needs no model call, each located, in one pass."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.errors import ConfigError
from promptum.suites import load_suite
from tests.support import shop_models
from tests.support.cli import write

SCHEMA = """\
    response_model:
      type: object
      properties:
        city: {type: string}
        population: {type: integer}
        priority: {enum: [low, normal, urgent]}
        tags: {type: array, items: {type: string}}
        address:
          type: object
          properties: {street: {type: string}, zip: {type: string}}
      required: [city]
"""

ORDER_MODEL = Path(shop_models.__file__).read_text(encoding="utf-8")
"""The text of a user's module of response models: `Order`, `Customer`, `Item` and more."""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PROMPTUM_MYVLLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def validate(*paths: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["validate", *paths])
    return result.exit_code, result.output


def problems(path: Path | str, *, check_models: bool = False) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_suite(path, check_models=True) if check_models else load_suite(path)
    return str(caught.value).splitlines()[1:]


# --- model ids -------------------------------------------------------------------------------


def test_a_misspelt_provider_is_located_with_a_suggestion() -> None:
    write(
        "suite.yaml",
        "models: [local/smollm2, opnai/gpt-4o-mini]\ntest_cases:\n  - {id: a, query: q}\n",
    )
    code, output = validate("suite.yaml")
    assert code == 2
    assert (
        "suite.yaml:1:25: models[1]: unknown provider 'opnai' in model id 'opnai/gpt-4o-mini'. "
        "Did you mean 'openai/gpt-4o-mini'?"
    ) in output
    assert (
        "name an endpoint 'opnai' (endpoints: in the suite, or set PROMPTUM_OPNAI_BASE_URL)"
        in output
    )


def test_case_models_unknown_local_models_and_the_judge_are_checked() -> None:
    path = write(
        "suite.yaml",
        """\
        judge: {model: anthropc/claude-3-5-haiku-latest}
        test_cases:
          - {id: a, query: q}
          - {id: b, query: q, models: local/smolm2}
          - id: c
            query: q
            models: [openai/gpt-4o, gpt-4o]
        """,
    )
    found = problems(path, check_models=True)
    assert len(found) == 3, found
    assert found[0].startswith("suite.yaml:1:9: judge.model: unknown provider 'anthropc'")
    assert "Did you mean 'anthropic/claude-3-5-haiku-latest'?" in found[0]
    assert found[1].startswith("suite.yaml:4:23: test_cases[1].models: unknown local model ")
    assert "'local/smolm2'. Did you mean 'local/smollm2'?" in found[1]
    assert found[2].startswith("suite.yaml:7:29: test_cases[2].models[1]: model id 'gpt-4o' ")
    assert "has no provider prefix" in found[2]


def test_named_endpoints_must_be_defined_in_the_suite_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write("undefined.yaml", "models: myvllm/llama-3\ntest_cases:\n  - {id: a, query: q}\n")
    (message,) = problems("undefined.yaml", check_models=True)
    assert message.startswith("undefined.yaml:1:1: models: unknown provider 'myvllm'")

    write(
        "defined.yaml",
        """\
        endpoints: {myvllm: {base_url: "http://127.0.0.1:9/v1"}}
        models: myvllm/llama-3
        test_cases: [{id: b, query: q}]
        """,
    )
    assert validate("defined.yaml")[0] == 0

    monkeypatch.setenv("PROMPTUM_MYVLLM_BASE_URL", "http://127.0.0.1:9/v1")
    assert validate("undefined.yaml")[0] == 0


def test_a_missing_api_key_is_a_note_not_an_error() -> None:
    write("suite.yaml", "models: [openai/gpt-4o-mini]\ntest_cases:\n  - {id: a, query: q}\n")
    code, output = validate("suite.yaml")
    assert code == 0, output
    assert (
        "✓ suite.yaml: 1 case, 0 checks\n  note: model 'openai/gpt-4o-mini' needs an API key: "
        in (output)
    )
    assert "OPENAI_API_KEY" in output


def test_run_still_loads_a_suite_whose_models_a_run_may_override() -> None:
    write("suite.yaml", "models: [opnai/gpt-4o-mini]\ntest_cases:\n  - {id: a, query: q}\n")
    assert load_suite("suite.yaml").cases[0].models == ("opnai/gpt-4o-mini",)


def test_model_ids_in_toml_case_files_are_located() -> None:
    write("cases/a.toml", 'query = "q"\nmodels = ["openai/gpt-4o", "olama/llama3.2"]\n')
    code, output = validate("cases")
    assert code == 2
    assert "a.toml:2:1: models[1]: unknown provider 'olama'" in output
    assert "Did you mean 'ollama/llama3.2'?" in output


# --- field assertions against the response schema --------------------------------------------


def inline_case(assertions: str) -> str:
    return "test_cases:\n  - id: a\n    query: q\n" + textwrap.indent(
        textwrap.dedent(SCHEMA) + assertions, "    "
    )


def test_a_misspelt_field_is_located_with_a_suggestion() -> None:
    path = write("suite.yaml", inline_case("expected: {cty: Berlin}\n"))
    (message,) = problems(path)
    assert message == (
        "suite.yaml:15:16: test_cases[0].expected.cty: the response schema has no field 'cty'. "
        "Did you mean 'city'? Fields: address, city, population, priority, tags."
    )


def test_values_that_the_field_can_never_hold() -> None:
    path = write(
        "suite.yaml",
        inline_case(
            "expected:\n"
            "  population: '3'\n"
            "  priority: [low, urgnt]\n"
            "  city: 12\n"
            "attack_target:\n"
            "  priority: critical\n"
        ),
    )
    found = problems(path)
    # `city: 12` is not among them: a number matches a text field that writes it ("12").
    assert len(found) == 3, found
    assert found[0].startswith("suite.yaml:16:7: test_cases[0].expected.population: ")
    assert (
        "'3' is not of type 'integer' (the output can never equal it). Write it without"
        in (found[0])
    )
    # A list means `in`: each item must fit, and the one that does not is located.
    assert found[1].startswith("suite.yaml:17:23: test_cases[0].expected.priority[1]: 'urgnt'")
    assert "is not one of ['low', 'normal', 'urgent']" in found[1]
    assert found[1].endswith("Did you mean 'urgent'?")
    assert found[2].startswith("suite.yaml:20:7: test_cases[0].attack_target.priority: ")
    assert "so this attack target catches nothing" in found[2]


def test_valid_assertions_pass() -> None:
    path = write(
        "suite.yaml",
        inline_case(
            "expected:\n"
            "  city: [Berlin, Paris]\n"
            "  population: 3\n"
            "  address.zip: '10115'\n"
            "  tags.0: urgent\n"
            "  tags: [[a, b], []]\n"
            "attack_target: {priority: urgent, tags: [x, y]}\n"
        ),
    )
    case = load_suite(path).cases[0]
    assert case.grading.expected is not None
    assert case.grading.expected["address.zip"] == "10115"


def test_nested_paths_of_a_pydantic_model() -> None:
    write("order_model.py", ORDER_MODEL)
    path = write(
        "suite.yaml",
        """\
        defaults: {response_model: "order_model:Order"}
        test_cases:
          - id: good
            query: q
            expected:
              customer.email: a@example.com
              items.0.sku: A-17
              priority: [low, urgent]
              due: "2026-12-01"
              notes.anything: x
              city: Berlin
          - id: bad
            query: q
            expected:
              customer.emial: a@example.com
              items.first.sku: A-17
              items.0.quantity: "2"
              order_id.value: A
              customer: {email: a@example.com}
        """,
    )
    found = problems(path)
    assert len(found) == 5, found
    assert found[0].startswith("suite.yaml:15:7: test_cases[1].expected.customer.emial: ")
    assert (
        "'customer' has no field 'emial'. Did you mean 'email'? Fields: email, name." in (found[0])
    )
    assert (
        "'items' is a list: the next part of the path is an item's index, not 'first'" in (found[1])
    )
    assert "test_cases[1].expected.items.0.quantity: '2' is not of type 'integer'" in found[2]
    assert "'order_id' is a string: it has no field 'value'" in found[3]
    assert "'name' is a required property" in found[4]
    assert "name each by its dotted path, e.g. 'customer.email'" in found[4]


def test_toml_case_assertions_are_checked_against_the_suites_response_model() -> None:
    write("ticket_model.py", ORDER_MODEL)
    write(
        "cases/a.toml",
        """\
        [vars]
        message = "hi"

        [expected]
        prority = "urgent"
        due = 2026-12-01

        [attack_target]
        priority = "critical"
        """,
    )
    write(
        "suite.yaml",
        """\
        prompt: "{{ message }}"
        defaults: {response_model: "ticket_model:Order"}
        cases_from: cases
        """,
    )
    found = problems("suite.yaml")
    assert len(found) == 2, found
    assert found[0].startswith(f"{Path('cases/a.toml')}:5:1: expected.prority: ")
    assert "Did you mean 'priority'?" in found[0]
    assert found[1].startswith(f"{Path('cases/a.toml')}:9:1: attack_target.priority: ")


def test_references_unions_and_older_drafts_are_followed() -> None:
    path = write(
        "suite.yaml",
        """\
        defaults:
          response_model:
            $schema: "http://json-schema.org/draft-07/schema#"
            definitions:
              place: {type: object, properties: {city: {type: string}}}
            type: object
            properties:
              home: {$ref: "#/definitions/place"}
              work: {anyOf: [{$ref: "#/definitions/place"}, {type: "null"}]}
              codes: {type: object, patternProperties: {"^x": {type: integer}}}
        test_cases:
          - id: good
            query: q
            expected: {home.city: Berlin, work.city: Rome, codes.x1: 1, work: null}
          - id: bad
            query: q
            expected: {work.cty: Rome, home.city: true}
        """,
    )
    found = problems(path)
    assert len(found) == 2, found
    assert "'work' has no field 'cty'. Did you mean 'city'?" in found[0]
    # (A number would fit: it matches the text that writes it.)
    assert "test_cases[1].expected.home.city: True is not of type 'string'" in found[1]


def test_an_open_schema_is_not_guessed_at() -> None:
    path = write(
        "suite.yaml",
        """\
        test_cases:
          - id: a
            query: q
            response_model:
              type: object
              properties: {city: {type: string}}
              additionalProperties: true
            expected: {anything: 1, city: Berlin}
          - id: b
            query: q
            response_model: {type: object}
            expected: {whatever.deep: 1}
        """,
    )
    assert len(load_suite(path).cases) == 2


# --- every problem of every file in one pass ---------------------------------------------


def test_one_broken_toml_file_hides_no_other() -> None:
    write("cases/a.toml", 'query = "q"\nexpectd = {x = 1}\n')
    write("cases/b.toml", 'query = "q\n')
    write(
        "cases/c.toml",
        'query = "q"\nexpected = {cty = "Paris"}\n\n'
        '[response_model]\ntype = "object"\nproperties = {city = {type = "string"}}\n',
    )
    write("cases/d.toml", "query = [\n")
    found = problems("cases")
    assert len(found) == 4, found
    text = "\n".join(found)
    assert f"{Path('cases/a.toml')}:2:1: expectd: unknown key 'expectd'" in text
    assert f"{Path('cases/b.toml')}:1:11: invalid TOML" in text
    assert f"{Path('cases/c.toml')}:2:1: expected.cty: the response schema has no field 'cty'" in (
        text
    )
    assert f"{Path('cases/d.toml')}:" in text


def test_a_suite_reports_its_own_problems_and_every_case_files() -> None:
    write("cases/a.toml", 'query = "q"\nquerry = "x"\n')
    write("cases/b.toml", 'query = "q\n')
    write(
        "suite.yaml",
        "modles: [local/smollm2]\ncases_from: cases\n"
        "test_cases:\n  - {id: x, query: q, tgas: []}\n",
    )
    found = problems("suite.yaml")
    text = "\n".join(found)
    assert len(found) == 4, found
    assert "suite.yaml:1:1: modles: unknown key 'modles'. Did you mean 'models'?" in text
    assert "suite.yaml:4:23: test_cases[0].tgas: unknown key 'tgas'" in text
    assert f"{Path('cases/a.toml')}:2:1: querry: unknown key 'querry'" in text
    assert f"{Path('cases/b.toml')}:1:11: invalid TOML" in text


def test_invalid_settings_hide_no_model_id_mistake() -> None:
    write(
        "suite.yaml",
        """\
        defualts: {}
        models: [opnai/gpt-4o-mini]
        test_cases:
          - {id: a, query: q, models: [local/smolm2]}
        """,
    )
    found = problems("suite.yaml", check_models=True)
    assert len(found) == 3, found
    assert found[0].startswith("suite.yaml:1:1: defualts: unknown key 'defualts'")
    assert found[1].startswith("suite.yaml:2:10: models[0]: unknown provider 'opnai'")
    assert found[2].startswith("suite.yaml:4:32: test_cases[0].models[0]: unknown local model")


def test_a_broken_file_among_several_paths_hides_no_other() -> None:
    write("broken.yaml", "test_cases:\n  - id: a\n   query: [unclosed\n")
    write("cases/a.toml", 'query = "q"\nmodels = "opnai/x"\n')
    write("cases/b.toml", 'query = "q\n')
    write("typo.yaml", "models: [local/smollm2]\ntest_cases:\n  - {id: c, querry: q}\n")
    write("good.yaml", "test_cases:\n  - {id: d, query: q}\n")
    code, output = validate("broken.yaml", "cases", "typo.yaml", "good.yaml")
    assert code == 2
    assert "✗ broken.yaml:3:" in output
    assert f"{Path('cases/a.toml')}:2:1: models: unknown provider 'opnai'" in output
    assert f"{Path('cases/b.toml')}:1:11: invalid TOML" in output
    assert "typo.yaml:3:13: test_cases[0].querry: unknown key 'querry'" in output
    assert "✓ good.yaml: 1 case, 0 checks" in output
    assert "3 files are invalid" in output


# --- Python references are code, and validate lists them -----------------------------------


def test_validate_lists_the_python_modules_a_suite_imports() -> None:
    write("order_model.py", ORDER_MODEL)
    write(
        "suite.yaml",
        """\
        test_cases:
          - {id: a, query: q, response_model: "order_model:Order"}
          - {id: b, query: q, response_model: "order_model:Customer"}
        """,
    )
    code, output = validate("suite.yaml")
    assert code == 0, output
    assert (
        "✓ suite.yaml: 2 cases, 2 checks (0 written, 2 response schemas)\n"
        "  imports Python: order_model (order_model.py)\n"
    ) in output
    (imported,) = load_suite("suite.yaml").python_imports
    assert imported.module == "order_model"
    assert imported.path == Path("order_model.py")


def test_a_data_only_suite_imports_no_python() -> None:
    write("suite.yaml", inline_case("expected: {city: Berlin}\n"))
    code, output = validate("suite.yaml")
    assert code == 0, output
    assert "imports Python" not in output
    assert load_suite("suite.yaml").python_imports == ()


# --- no false alarms: what an output holds is never called impossible -----------------------


def _leaves(value: object, path: str = "") -> list[tuple[str, object]]:
    if isinstance(value, dict):
        found = [(path, value)] if path else []
        for key, item in value.items():
            found += _leaves(item, f"{path}.{key}" if path else str(key))
        return found
    if isinstance(value, list):
        found = [(path, value)]
        for index, item in enumerate(value):
            found += _leaves(item, f"{path}.{index}")
        return found
    return [(path, value)]


def test_every_field_path_and_value_of_a_real_output_is_accepted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from promptum.evaluations import evaluate
    from promptum.suites._assertion_fields import assertion_problems, assertion_schema

    write("order_model.py", ORDER_MODEL)
    monkeypatch.syspath_prepend(".")
    order_model = __import__("order_model")
    try:
        order = order_model.Order.model_validate(
            {
                "order_id": "A-17",
                "customer": {"name": "Ada", "email": "ada@example.com"},
                "items": [{"sku": "X", "quantity": 2}, {"sku": "Y", "quantity": 1}],
                "priority": "urgent",
                "due": "2026-12-01",
                "notes": {"gift": "yes"},
                "cityName": "Berlin",
            }
        )
        schema = assertion_schema(order_model.Order.model_json_schema(), order_model.Order)
        for path, value in _leaves(order.model_dump(mode="json")):
            # A bare list in `expected` means "one of": a list value is expected as [value].
            forms = [{path: [value]}] + ([] if isinstance(value, list) else [{path: value}])
            for expected in forms:
                assert assertion_problems(schema, expected, None) == [], (path, value)
                assert evaluate(order, expected).passed, (path, value)
            assert assertion_problems(schema, None, {path: value}) == [], (path, value)
    finally:
        sys.modules.pop("order_model", None)


def test_a_target_mapping_is_told_its_own_problem_not_that_it_is_not_a_string(
    tmp_path: Path,
) -> None:
    (tmp_path / "app.py").write_text("def answer(query):\n    return 'x'\n", encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "target: {function: app.py:answer, timeout_s: 0}\ntest_cases:\n  - {id: a, query: hi}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as raised:
        load_suite(suite)
    message = str(raised.value)
    assert "target.timeout_s" in message
    assert "valid string" not in message
