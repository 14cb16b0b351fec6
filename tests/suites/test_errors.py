"""Every load error names the file, line, column and field, says what is wrong and what is right."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import load_suite, load_suites
from tests.suites.suite_problems import located_problem, problems
from tests.support.cli import write


def test_unknown_top_level_key_suggests_the_right_one(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path, "defualts:\n  params: {temperature: 0}\ntest_cases:\n  - {id: a, query: q}\n"
    )
    assert message.startswith("1:1: defualts: unknown key 'defualts'. Did you mean 'defaults'?")
    assert "Allowed keys:" in message


def test_unknown_case_key(tmp_path: Path) -> None:
    message = located_problem(tmp_path, "test_cases:\n  - id: a\n    querry: hi\n")
    assert message.startswith("3:5: test_cases[0].querry: unknown key 'querry'.")
    assert "Did you mean 'query'?" in message


def test_unknown_key_in_check_and_params(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            query: q
            params: {temprature: 0}
            checks:
              - {type: contains, valeu: x}
        """,
    )
    found = problems(path)
    assert any(
        p.startswith(f"{path}:4:")
        and "test_cases[0].params.temprature" in p
        and "Did you mean 'temperature'?" in p
        for p in found
    ), found
    assert any(
        "test_cases[0].checks[0].valeu: unknown key 'valeu'. Did you mean 'value'?" in p
        for p in found
    ), found


def test_bad_check_definitions_are_all_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            query: q
            checks:
              - type: contian
                value: x
              - type: max_latency_ms
                value: -3
              - type: regex
                value: "(("
              - type: contains
                value: 5
              - type: min_length
                value: 10
                case_insensitive: true
              - type: is_valid_json
                value: yes
        """,
    )
    found = problems(path)
    expected = [
        ("5:9", "checks[0]", "unknown check type 'contian'. Did you mean 'contains'?"),
        ("7:9", "checks[1]", "check 'max_latency_ms' needs a non-negative number, got -3"),
        ("9:9", "checks[2]", "invalid regular expression '(('"),
        ("11:9", "checks[3]", "needs a string value, got int 5; quote it in YAML"),
        ("13:9", "checks[4]", "case_insensitive applies only to string checks"),
        ("16:9", "checks[5]", "check 'is_valid_json' takes no value; remove `value`"),
    ]
    assert len(found) == len(expected), found
    for line, (where, field, text) in zip(found, expected, strict=True):
        assert line.startswith(f"{path}:{where}: test_cases[0].{field}: "), line
        assert text in line


def test_wrong_types_show_what_was_given(tmp_path: Path) -> None:
    message = located_problem(tmp_path, "repeat: many\ntest_cases:\n  - {id: a, query: q}\n")
    assert message.startswith("1:1: repeat: ")
    assert "integer" in message
    assert "(got 'many')" in message


def test_a_scalar_where_a_mapping_belongs_names_the_keys_not_pydantic_classes(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - just text\n  - {id: a, query: q, checks: [x]}\n",
    )
    found = problems(path)
    assert found[0].startswith(f"{path}:2:5: test_cases[0]: must be a mapping with keys such as ")
    assert "(got 'just text')" in found[0]
    assert found[1].startswith(f"{path}:3:32: test_cases[1].checks[0]: must be a mapping")
    assert "keys such as case_insensitive, metric, model, threshold, " in found[1]
    assert "type, value, weight (got 'x')" in found[1]
    assert not any("CaseFields" in line or "CheckDefinition" in line for line in found)


def test_duplicate_yaml_keys(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "test_cases:\n  - id: a\n    query: q\n    query: r\n")
    with pytest.raises(
        ConfigError, match=r"suite.yaml:4:5: test_cases\[0\].query: key 'query' appears twice"
    ):
        load_suite(path)


def test_duplicate_case_ids_within_and_across_suites(tmp_path: Path) -> None:
    same = write(
        tmp_path / "same.yaml", "test_cases:\n  - {id: a, query: q}\n  - {id: a, query: r}\n"
    )
    for load in (load_suite, lambda path: load_suites([path])):
        with pytest.raises(ConfigError) as caught:
            load(same)
        message = str(caught.value)
        assert f"{same}:3: duplicate case id 'a' in suite 'same', first defined at {same}:2" in (
            message
        )

    # Suites namespace their ids: the same id in two suites is two cases.
    other = write(tmp_path / "other.yaml", "test_cases:\n  - {id: b, query: q}\n")
    again = write(tmp_path / "again.yaml", "test_cases:\n  - {id: b, query: q}\n")
    keys = [case.key for suite in load_suites([other, again]) for case in suite.cases]
    assert keys == ["other/b", "again/b"]
    twin = tmp_path / "twin"
    twin.mkdir()
    clash = write(twin / "other.yaml", "test_cases:\n  - {id: b, query: q}\n")
    with pytest.raises(ConfigError, match="suite name 'other' is also the name of"):
        load_suites([other, clash])


def test_missing_template_variable(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path,
        "vars: {city: Paris}\ntest_cases:\n  - id: a\n    query: 'Where is {{ citty }}?'\n",
    )
    assert message.startswith(
        "4:5: test_cases[0].query: template variable error: 'citty' is undefined"
    )
    assert "define it under `vars` (defined here: city). Did you mean 'city'?" in message


def test_template_syntax_error(tmp_path: Path) -> None:
    message = located_problem(tmp_path, "test_cases:\n  - id: a\n    query: 'Hi {{ name '\n")
    assert message.startswith("3:5: test_cases[0].query: template syntax error")


def test_yaml_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "test_cases:\n  - id: a\n   query: [unclosed\n")
    with pytest.raises(ConfigError, match=rf"^{path}:3:\d+: invalid YAML: "):
        load_suite(path)


def test_a_tab_in_the_indentation_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "test_cases:\n\t- id: a\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert str(caught.value).startswith(f"{path}:2:1: invalid YAML: ")
    assert str(caught.value).endswith(
        "(a tab: YAML indents with spaces only; replace the tab with spaces)"
    )


def test_a_character_yaml_does_not_allow_is_named_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", 'test_cases:\n  - {id: a, query: "x\x00"}\n')
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert str(caught.value) == (
        f"{path}:2: invalid YAML: character #x0000 is not allowed in a YAML file (is it a text "
        "file?); remove it"
    )


def test_an_unclosed_quote_points_back_to_where_it_opened(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", 'test_cases:\n  - id: a\n    query: "hi\n  - id: b\n')
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert "(while scanning a quoted scalar that starts at line 3, column 12)" in str(caught.value)


def test_empty_and_non_mapping_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the file is empty; `promptum init` writes a starter"):
        load_suite(write(tmp_path / "empty.yaml", ""))
    with pytest.raises(
        ConfigError, match=r"list.yaml:1:1: a suite is a mapping with `test_cases:`"
    ):
        load_suite(write(tmp_path / "list.yaml", "- id: a\n"))
    with pytest.raises(ConfigError, match="the suite has no cases"):
        load_suite(write(tmp_path / "nocases.yaml", "name: nothing\n"))
    message = located_problem(tmp_path, "test_cases: {id: a}\n")
    assert message.startswith("1:1: test_cases: must be a list")


def test_case_shape_problems(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - query: no id
          - id: both
            query: q
            messages: [{role: user, content: hi}]
          - id: nothing
          - id: assertions-without-model
            query: q
            expected: {city: Paris}
          - id: bad-role
            messages: [{role: robot, content: hi}]
        """,
    )
    found = problems(path)
    assert len(found) == 5, found
    assert found[0].startswith(f"{path}:2:5: test_cases[0].id: every test case needs an `id`")
    assert found[1].startswith(f"{path}:5:5: test_cases[1].messages: give either `query` or")
    assert found[2].startswith(f"{path}:6:5: test_cases[2]: the case has no prompt")
    assert found[3].startswith(f"{path}:9:5: test_cases[3].expected: field assertions need")
    assert found[4].startswith(f"{path}:11:17: test_cases[4].messages[0].role: ")
    assert "'system', 'user', 'assistant' or 'tool'" in found[4]


def test_response_model_problems(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: missing-module
            query: q
            response_model: no_such_module_here:Thing
          - id: no-colon
            query: q
            response_model: just_a_name
          - id: not-a-model
            query: q
            response_model: "json:loads"
          - id: bad-schema
            query: q
            response_model: {type: 12}
        """,
    )
    found = problems(path)
    assert len(found) == 4, found
    assert found[0].startswith(f"{path}:4:5: test_cases[0].response_model: cannot import module")
    assert "must be `module:Class`" in found[1]
    assert "'json:loads' is not a pydantic model class" in found[2]
    assert "response_model is not a valid JSON Schema" in found[3]


def test_api_keys_are_refused_in_suite_files(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path,
        "endpoints:\n  mine: {base_url: 'http://127.0.0.1:1/v1', api_key: sk-secret}\n"
        "test_cases:\n  - {id: a, query: q}\n",
    )
    assert "never write an API key into a suite file" in message
    assert "sk-secret" not in message


def test_judge_prompt_template_is_checked(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path,
        "judge: {prompt: 'Grade {{ answer }}'}\ntest_cases:\n  - {id: a, query: q}\n",
    )
    assert message.startswith("1:9: judge.prompt: template variable error: 'answer' is undefined")


def test_cases_from_problems(tmp_path: Path) -> None:
    write(tmp_path / "data.txt", "not cases\n")
    path = write(
        tmp_path / "suite.yaml", "prompt: p\ncases_from: [missing.csv, data.txt, no_folder]\n"
    )
    found = problems(path)
    assert found[0].startswith(f"{path}:2:14: cases_from[0]: ")
    assert "no such file" in found[0]
    assert "cannot read cases from a .txt file" in found[1]
    assert found[2].endswith("no_folder: no such file or folder")


def test_bad_rows_are_located(tmp_path: Path) -> None:
    write(tmp_path / "rows.csv", "id,city\na,Paris\nb,Rome,extra\n")
    path = write(tmp_path / "suite.yaml", "prompt: '{{ city }}'\ncases_from: rows.csv\n")
    assert "rows.csv:3: row 2 has more values than the header" in problems(path)[0]

    write(tmp_path / "rows.jsonl", '{"id": "a", "city": "Paris"}\n{"id": "b", city}\n')
    path = write(tmp_path / "suite.yaml", "prompt: '{{ city }}'\ncases_from: rows.jsonl\n")
    assert "rows.jsonl:2:13: invalid JSON" in problems(path)[0]

    write(tmp_path / "vars.jsonl", '{"id": "a", "city": "Paris"}\n{"id": "b"}\n')
    path = write(tmp_path / "suite.yaml", "prompt: '{{ city }}'\ncases_from: vars.jsonl\n")
    (message,) = problems(path)
    assert message.startswith(f"{tmp_path / 'vars.jsonl'}:2: template variable error")


def test_toml_case_problems(tmp_path: Path) -> None:
    write(tmp_path / "cases/a.toml", 'query = "q"\nexpectd = {x = 1}\n')
    write(tmp_path / "cases/b.toml", 'query = "q\n')
    with pytest.raises(ConfigError) as caught:
        load_suite(tmp_path / "cases")
    text = str(caught.value)
    assert f"{tmp_path / 'cases' / 'b.toml'}:1:11: invalid TOML: Illegal character" in text

    (tmp_path / "cases" / "b.toml").unlink()
    with pytest.raises(ConfigError) as caught:
        load_suite(tmp_path / "cases")
    where = tmp_path / "cases" / "a.toml"
    assert f"{where}:2:1: expectd: unknown key 'expectd'. Did you mean 'expected'?" in str(
        caught.value
    )


def test_not_a_suite(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file or folder"):
        load_suite(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match=r"not a suite; give a \.yaml/\.yml suite"):
        load_suite(write(tmp_path / "cases.csv", "id\n"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"the folder has no \*\.toml case files"):
        load_suite(tmp_path / "empty")


def test_many_problems_are_capped(tmp_path: Path) -> None:
    cases = "".join(f"  - {{id: c{i}, query: q, bad{i}: 1}}\n" for i in range(30))
    found = problems(write(tmp_path / "suite.yaml", f"test_cases:\n{cases}"))
    assert len(found) == 21
    assert found[-1] == "... and 10 more problems"


def test_a_recursive_alias_is_an_error_not_a_crash(tmp_path: Path) -> None:
    message = located_problem(
        tmp_path, "vars: &loop {self: *loop}\ntest_cases:\n  - {id: a, query: q}\n"
    )
    assert message.startswith("1:14: vars.self: a YAML alias refers to itself")


def test_toml_dotted_keys_are_located(tmp_path: Path) -> None:
    write(tmp_path / "cases/a.toml", 'query = "q"\n\nexpected.city = "Berlin"\n')
    with pytest.raises(ConfigError) as caught:
        load_suite(tmp_path / "cases")
    where = tmp_path / "cases" / "a.toml"
    assert f"{where}:3:1: expected: field assertions need structured output" in str(caught.value)


def test_toml_array_of_tables_entries_are_located(tmp_path: Path) -> None:
    text = 'query = "q"\n[[checks]]\ntype = "contains"\nvalue = "a"\n[[checks]]\ntype = "regx"\n'
    write(tmp_path / "cases/a.toml", text)
    with pytest.raises(ConfigError) as caught:
        load_suite(tmp_path / "cases")
    where = tmp_path / "cases" / "a.toml"
    assert f"{where}:5: checks[1]: unknown check type 'regx'" in str(caught.value)


def test_a_response_model_module_that_fails_to_import_is_a_problem(tmp_path: Path) -> None:
    write(tmp_path / "broken_output_model.py", "raise RuntimeError('boom')\n")
    message = located_problem(
        tmp_path, "test_cases:\n  - {id: a, query: q, response_model: 'broken_output_model:X'}\n"
    )
    assert message == (
        "2:23: test_cases[0].response_model: module 'broken_output_model' of response_model "
        "failed to import: RuntimeError: boom"
    )


def test_a_response_model_without_a_json_schema_is_a_problem(tmp_path: Path) -> None:
    write(
        tmp_path / "callable_output_model.py",
        "from typing import Callable\nfrom pydantic import BaseModel\n\n\n"
        "class X(BaseModel):\n    f: Callable[[], int]\n",
    )
    message = located_problem(
        tmp_path, "test_cases:\n  - {id: a, query: q, response_model: 'callable_output_model:X'}\n"
    )
    assert message.startswith(
        "2:23: test_cases[0].response_model: 'callable_output_model:X' has no JSON Schema: "
    )


@pytest.mark.parametrize("written", ["5", "true", "{a: 1}"])
def test_cases_from_that_is_no_path_or_list_is_one_problem(tmp_path: Path, written: str) -> None:
    message = located_problem(tmp_path, f"models: [local/smollm2]\ncases_from: {written}\n")
    assert message.startswith("2:1: cases_from: Input should be a valid list"), message


def test_a_misspelled_endpoint_key_gets_a_suggestion_and_the_keys_a_suite_may_write(
    tmp_path: Path,
) -> None:
    message = located_problem(
        tmp_path,
        "endpoints:\n  stub: {base_ur: 'http://127.0.0.1:9/v1'}\nmodels: [stub/m]\n"
        "test_cases: [{id: a, query: hi, checks: [{type: max_length, value: 9}]}]\n",
    )
    assert message.startswith(
        "2:10: endpoints.stub.base_ur: unknown key 'base_ur'. Did you mean 'base_url'? "
        "Allowed keys: api_key_env, base_url,"
    ), message


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("endpoints: 5", "1:1: endpoints: must be a mapping of names (`endpoints: {NAME: ...}`)"),
        ("prompts: 5", "1:1: prompts: must be a mapping of names (`prompts: {NAME: ...}`)"),
        ("target: 5", "1:1: target: must be text or a mapping with keys such as body, "),
        ("tool_choice: 5", "1:1: tool_choice: Input should be 'auto', 'none' or 'required'"),
    ],
)
def test_a_wrong_type_names_the_key_as_written_and_what_it_holds(
    tmp_path: Path, written: str, said: str
) -> None:
    path = write(
        tmp_path / "suite.yaml",
        f"{written}\ntest_cases: [{{id: a, query: hi, checks: [{{type: contains, value: h}}]}}]\n",
    )
    found = problems(path)
    assert found[0].removeprefix(f"{path}:").startswith(said), found
    assert not any(".str:" in line or ".literal[" in line for line in found), found


def test_a_value_of_no_type_a_key_takes_is_one_problem_saying_each_type(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - {id: a, query: 42}\n"
        "  - {id: b, query: hi, checks: {type: contains, value: hi}}\n",
    )
    found = [line.removeprefix(f"{path}:") for line in problems(path)]
    assert found == [
        "2:13: test_cases[0].query: must be text or a mapping with keys such as audio, documents, "
        "images, text (got 42); quote it to make it text",
        "3:24: test_cases[1].checks: Input should be a valid list (got {'type': 'contains', "
        "'value': 'hi'}); write it as a list (`checks: [{...}]`), one item per entry",
    ]
