"""An imported promptfoo config means what promptfoo makes of it, or the import says it does not.

Each test reproduces a change of meaning issue 36 found the importer making without a word.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from promptum.checks import CheckDefinition, evaluate_checks
from promptum.cli import main
from promptum.importers._javascript import translate
from promptum.suites import Suite, load_suite
from promptum.values.completion import Completion, ToolCall
from tests.support.cli import usage_error, write
from tests.support.media import PNG


def _asking_gpt_4o_mini(tests: str) -> str:
    """A config asking `q` of gpt-4o-mini with these `tests` (YAML), from its second line on."""
    return '\nprompts: ["{{q}}"]\nproviders: [openai:chat:gpt-4o-mini]\ntests:' + tests


def _import(folder: Path, config: str, **files: str) -> tuple[Result, Path]:
    """Write `config` (and `files`, by path) into `folder` and import it."""
    for name, text in {"promptfooconfig.yaml": config, **files}.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    suite = folder / "suite.yaml"
    done = CliRunner().invoke(
        main, ["import", "promptfoo", str(folder / "promptfooconfig.yaml"), "-o", str(suite)]
    )
    return done, suite


def _loaded(done: Result, suite: Path) -> Suite:
    assert done.exit_code == 0, done.output
    return load_suite(suite)


def _not_converted(done: Result) -> str:
    return done.output.split("not converted:\n", 1)[1] if "not converted:\n" in done.output else ""


# YAML 1.2: promptfoo (js-yaml) reads `Yes` as text and `012` as 12; PyYAML, as YAML 1.1,
# reads a bool and the octal 10.

WORDS = "[Yes, no, On, OFF, y, '012', 012, 0o17, 1_000, true, False]"


def test_the_config_and_its_yaml_files_are_read_as_yaml_12(tmp_path: Path) -> None:
    config = f"""
prompts: [file://chat.yaml]
providers: [openai:chat:gpt-4o-mini]
tests:
  - description: inline
    vars: {{words: {WORDS}}}
    assert: [{{type: contains, value: Yes}}]
  - file://more.yaml
"""
    more = "- description: from a file\n  vars: {answer: off}\n"
    more += "  assert: [{type: equals, value: No}]\n"
    chat = "- role: user\n  content: on\n- role: assistant\n  content: Yes\n"
    done, suite = _import(tmp_path, config, **{"more.yaml": more, "chat.yaml": chat})
    *inline, from_file = _loaded(done, suite).cases  # a list var: a case per item
    as_promptfoo = ["Yes", "no", "On", "OFF", "y", "012", 12, 15, 1000, True, False]
    assert [case.vars["words"] for case in inline] == as_promptfoo
    assert from_file.vars["answer"] == "off"
    text = suite.read_text(encoding="utf-8")
    assert "value: 'Yes'" in text  # quoted: promptum's YAML 1.1 reads it back as text
    assert "value: \\ANo\\Z" in text  # equals: the whole output
    assert "content: 'on'" in text


def test_a_suite_itself_is_still_read_as_yaml_11(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "prompt: 'Say {{x}}'\ntest_cases:\n  - {id: a, vars: {x: Yes, n: 012}, checks: "
        "[{type: contains, value: a}]}\n",
        encoding="utf-8",
    )
    [case] = load_suite(suite).cases
    assert case.vars == {"x": True, "n": 10}


# A bare prompt path: promptfoo reads a prompt that names an existing file as that file.


def test_a_prompt_that_names_an_existing_file_is_the_files_text(tmp_path: Path) -> None:
    config = """
prompts:
  - prompts/tutor.txt
  - Answer in three words.
  - prompts/missing.txt
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {topic: loops}, assert: [{type: contains, value: x}]}]
"""
    tutor = "You are a Python tutor. Explain {{topic}}.\n"
    done, suite = _import(tmp_path, config, **{"prompts/tutor.txt": tutor})
    assert _loaded(done, suite).cases
    written = yaml.safe_load(suite.read_text(encoding="utf-8"))["prompts"]
    assert list(written.values()) == [
        "You are a Python tutor. Explain {{topic}}.",
        "Answer in three words.",
        "prompts/missing.txt",  # no such file: promptfoo's text too
    ]


# `ends-with` is no assertion of promptfoo 0.123.1: it stops the test, never grades it.


def test_ends_with_is_refused_as_promptfoo_has_no_such_assertion(tmp_path: Path) -> None:
    tests = """
  - vars: {q: capital}
    assert: [{type: ends-with, value: France.}, {type: contains, value: Paris}]
"""
    done, suite = _import(tmp_path, _asking_gpt_4o_mini(tests))
    [case] = _loaded(done, suite).cases
    assert [check.type for check in case.grading.checks] == ["contains"]
    assert "promptfooconfig.yaml:6: assertion `ends-with`: promptfoo has no such assertion" in (
        _not_converted(done)
    )


# JavaScript of one line runs as `return <code>` in promptfoo: `return x` there is
# `return return x`, a SyntaxError, and the assertion fails.


def test_a_one_line_return_is_refused_and_a_function_body_converts(tmp_path: Path) -> None:
    tests = """
  - vars: {q: a}
    assert:
      - {type: javascript, value: "return output.length > 10;"}
      - type: javascript
        value: |
          return output.length > 3;
"""
    done, suite = _import(tmp_path, _asking_gpt_4o_mini(tests))
    [case] = _loaded(done, suite).cases
    assert [check.value for check in case.grading.checks] == ["(output | length) > 3"]
    refused = _not_converted(done)
    assert "promptfooconfig.yaml:7: assertion `javascript`" in refused
    assert "promptfoo runs a one-line assertion as `return <code>`, a SyntaxError" in refused


# A provider id that is not a chat model is never run as a chat model of the same name.


@pytest.mark.parametrize(
    ("provider", "runs"),
    [
        ("anthropic:claude-agent-sdk", "the Claude Agent SDK"),
        ("openai:codex-sdk", "the OpenAI Codex SDK"),
        ("openai:embedding:text-embedding-3-small", "an embedding model"),
        ("openai:assistant:asst_abc123", "an OpenAI assistant"),
        ("openai:realtime:gpt-4o-realtime-preview", "OpenAI's Realtime API"),
    ],
)
def test_a_provider_that_is_not_a_chat_model_is_refused(
    provider: str, runs: str, tmp_path: Path
) -> None:
    config = f"""
prompts: ["{{{{q}}}}"]
providers: [{provider}, openai:chat:gpt-4o-mini]
tests: [{{vars: {{q: a}}, assert: [{{type: contains, value: a}}]}}]
"""
    done, suite = _import(tmp_path, config)
    assert _loaded(done, suite).cases[0].id
    assert "models:\n  # promptfooconfig.yaml:3\n  - openai/gpt-4o-mini\n" in suite.read_text()
    refused = _not_converted(done)
    assert f"promptfooconfig.yaml:3: provider {provider}: promptfoo runs {runs}" in refused
    assert "not a chat model" in refused


def test_a_completion_mode_is_stated_as_approximate(tmp_path: Path) -> None:
    config = """
prompts: ["{{q}}"]
providers: [openai:completion:gpt-3.5-turbo-instruct]
tests: [{vars: {q: a}, assert: [{type: contains, value: a}]}]
"""
    done, suite = _import(tmp_path, config)
    assert "- openai/gpt-3.5-turbo-instruct" in suite.read_text()
    approximately = done.output.split("not converted:")[0]
    assert "provider openai:completion:gpt-3.5-turbo-instruct: promptfoo calls the" in approximately


# A cost bound on a model promptum has no price for fails every answer (promptfoo errors).


def test_a_cost_bound_on_a_model_without_a_price_is_stated(tmp_path: Path) -> None:
    config = """
prompts: ["{{q}}"]
providers: [openai:chat:gpt-4o-mini, openai:chat:acme-finetune]
tests: [{vars: {q: a}, assert: [{type: cost, threshold: 0.002}]}]
"""
    done, suite = _import(tmp_path, config)
    assert _loaded(done, suite).cases
    stated = "promptum has no price for openai/acme-finetune, so the bound fails on every answer"
    assert f"promptfooconfig.yaml:4: assertion `cost`: {stated}" in done.output
    assert f"# approximately: {stated}" in suite.read_text(encoding="utf-8")
    assert "gpt-4o-mini," not in done.output.split("approximately:\n", 1)[1]  # it has a price


def test_a_cost_bound_on_a_model_without_a_price_is_stated_and_fails_its_answers(
    tmp_path: Path,
) -> None:
    config = """
prompts: ["{{q}}"]
providers: [openai:chat:gpt-4o-mini, openai:chat:acme-finetune]
tests: [{vars: {q: a}, assert: [{type: cost, threshold: 0.002}]}]
"""
    done, suite = _import(tmp_path, config)
    assert "promptum has no price for openai/acme-finetune, so the bound fails" in done.output
    _loaded(done, suite)
    [case] = yaml.safe_load(suite.read_text(encoding="utf-8"))["test_cases"]
    assert case["checks"] == [
        {"type": "expr", "value": "cost_usd is not none and cost_usd <= 0.002"}
    ]
    check = CheckDefinition(**case["checks"][0])
    unpriced = Completion(text="a", cost_usd=None)
    priced = Completion(text="a", cost_usd=0.001)
    assert [evaluate_checks([check], c)[0].passed for c in (unpriced, priced)] == [False, True]
    # Written by hand, the same bound on the unpriced model is a located load error.
    write(
        suite,
        "models: [openai/gpt-4o-mini, openai/acme-finetune]\nprompt: '{{q}}'\n"
        "test_cases:\n  - {id: a, vars: {q: a}, checks: [{type: max_cost_usd, value: 0.002}]}\n",
    )
    refused = usage_error("validate", str(suite))
    assert f"{suite.name}:4: max_cost_usd bounds the cost of openai/acme-finetune" in refused


def _checks(suite: Path) -> dict[str, list[dict[str, object]]]:
    """Each written case's checks, by case id."""
    data = yaml.safe_load(suite.read_text(encoding="utf-8"))
    return {case["id"]: case.get("checks", []) for case in data["test_cases"]}


def _grades(checks: list[dict[str, object]], completion: Completion) -> list[bool]:
    definitions = [CheckDefinition(**check) for check in checks]  # type: ignore[arg-type]
    return [result.passed for result in evaluate_checks(definitions, completion)]


# promptfoo's `output` of a tool-calling answer is OpenAI's tool_calls list, of a
# json_schema answer the parsed object; its text assertions see their JSON.

TOOLS = """
prompts: ["Weather in {{city}}"]
providers:
  - id: openai:chat:gpt-4o-mini
    config:
      tools:
        - type: function
          function:
            name: get_weather
            parameters: {type: object, properties: {location: {type: string}}}
tests:
  - description: name
    vars: {city: Boston}
    assert: [{type: javascript, value: "output[0].function.name === 'get_weather'"}]
  - description: argument
    vars: {city: Boston}
    assert:
      - type: javascript
        value: JSON.parse(output[0].function.arguments).location === 'Boston'
  - description: serialised
    vars: {city: Boston}
    assert: [{type: contains, value: '"name": "get_weather"'}]
"""


def test_javascript_reads_a_tool_calling_answer_as_promptfoos_output(tmp_path: Path) -> None:
    done, suite = _import(tmp_path, TOOLS)
    _loaded(done, suite)
    checks = _checks(suite)
    called = Completion(
        text="", tool_calls=(ToolCall(name="get_weather", arguments={"location": "Boston"}),)
    )
    elsewhere = Completion(
        text="", tool_calls=(ToolCall(name="get_weather", arguments={"location": "Paris"}),)
    )
    assert _grades(checks["name"], called) == [True]
    assert _grades(checks["argument"], called) == [True]
    assert _grades(checks["argument"], elsewhere) == [False]
    # A text check sees the calls' JSON (stated: with a space after `,` and `:`).
    assert checks["serialised"][0]["transform"] == "answer"
    assert _grades(checks["serialised"], called) == [True]
    assert _grades(checks["serialised"], Completion(text="no call")) == [False]
    assert "tool calls and JSON-schema answers: a text check's `transform: answer`" in done.output


def test_the_answer_is_the_message_when_the_model_also_wrote_text() -> None:
    check = CheckDefinition(
        type="expr", value='answer.content == "Sure" and answer.tool_calls[0].function.name == "f"'
    )
    completion = Completion(text="Sure", tool_calls=(ToolCall(name="f", arguments={}),))
    assert evaluate_checks([check], completion)[0].passed
    text_only = CheckDefinition(type="expr", value='answer == "plain"')
    assert evaluate_checks([text_only], Completion(text="plain"))[0].passed


def test_a_prompts_json_schema_is_the_cases_response_model(tmp_path: Path) -> None:
    config = """
prompts:
  - label: structured
    raw: "Describe {{name}}"
    config:
      temperature: 0
      response_format:
        type: json_schema
        json_schema: {name: person, schema: {type: object, properties: {name: {type: string}}}}
providers: [openai:chat:gpt-4o-mini]
tests:
  - description: has the name field
    vars: {name: Ada}
    assert: [{type: javascript, value: "typeof output === 'object' && 'name' in output"}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    data = yaml.safe_load(suite.read_text(encoding="utf-8"))
    assert data["defaults"]["response_model"]["properties"] == {"name": {"type": "string"}}
    assert "prompt config `temperature`: promptum's prompt variants carry no" in done.output
    [check] = _checks(suite)["has-the-name-field"]
    answered = Completion(text='{"name": "Ada"}', output={"name": "Ada"})
    assert _grades([check], answered) == [True]
    assert _grades([check], Completion(text="Ada", output={"age": 3})) == [False]


def test_prompts_with_different_json_schemas_are_not_carried(tmp_path: Path) -> None:
    config = """
prompts:
  - raw: "A {{x}}"
    config: {response_format: {type: json_schema, json_schema: {schema: {type: object}}}}
  - "B {{x}}"
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {x: a}, assert: [{type: contains, value: a}]}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    assert "response_model" not in suite.read_text(encoding="utf-8")
    assert "prompt response_format: promptum asks every prompt variant" in _not_converted(done)


# A JSON schema's `$ref` is followed within it only, as in a suite: never fetched or read.


@pytest.mark.parametrize("kind", ["is-json", "contains-json"])
def test_a_json_schema_referring_outside_itself_is_not_converted(tmp_path: Path, kind: str) -> None:
    tests = f"""
  - description: refers out
    vars: {{q: a}}
    assert: [{{type: {kind}, value: {{$ref: "file:///etc/passwd"}}}}]
  - description: refers in
    vars: {{q: a}}
    assert: [{{type: {kind}, value: {{$defs: {{n: {{type: number}}}}, $ref: "#/$defs/n"}}}}]
"""
    done, suite = _import(tmp_path, _asking_gpt_4o_mini(tests))
    _loaded(done, suite)
    checks = _checks(suite)
    assert checks["refers-out"] == []
    refused = f"assertion `{kind}`: its schema: $ref 'file:///etc/passwd' points outside"
    assert refused in _not_converted(done)
    [check] = checks["refers-in"]
    assert check["type"] == "python"
    assert str(check["value"]).startswith("suite_adapter.py:promptfoo_")
    assert "registry=referencing.Registry()" in (tmp_path / "suite_adapter.py").read_text()


# JavaScript's loose `==` converts text and numbers: `"5" == 5`, `3 == '3'`.


@pytest.mark.parametrize(
    ("code", "text", "passes"),
    [
        ("output == 5", "5", True),
        ("output == 5", " 5.0\n", True),
        ("output == 5", "five", False),
        ("output == 10", "1_0", True),  # stated: NaN in JavaScript
        ("output == 0", "1_0", False),
        ("output == 0", "", True),
        ("output === 5", "5", False),
        ("output != 5", "5", False),
        ("JSON.parse(output).count == '3'", '{"count": 3}', True),
        ("JSON.parse(output).count == '3'", '{"count": "3"}', True),
        ("JSON.parse(output).count == '3'", '{"count": " 3"}', False),
        ("JSON.parse(output).count == 3", '{"count": "3"}', True),
        ("JSON.parse(output).count == 3", '{"count": 4}', False),
        ("JSON.parse(output).ok == 1", '{"ok": true}', True),
        ("JSON.parse(output).ok == '1'", '{"ok": true}', True),
        ("JSON.parse(output).a == 'abc'", '{"a": null}', False),
        ("JSON.parse(output).a == 'abc'", '{"a": "abc"}', True),
        ("JSON.parse(output).a == 2", '{"a": [2]}', False),  # stated: [2] == 2 in JavaScript
        ("JSON.parse(output).a == 2", '{"a": null}', False),
        ("typeof JSON.parse(output).a === 'number'", '{"a": 1}', True),
        ("typeof JSON.parse(output).a === 'object'", '{"a": null}', True),
        ("'a' in JSON.parse(output)", '{"a": 1}', True),
        ("'b' in JSON.parse(output)", '{"a": 1}', False),
    ],
)
def test_loose_equality_typeof_and_in_grade_as_javascript_does(
    code: str, text: str, passes: bool
) -> None:
    translated = translate(code)
    check = CheckDefinition(type="expr", value=translated.text)
    assert evaluate_checks([check], Completion(text=text))[0].passed is passes, translated.text


def test_what_loose_equality_cannot_carry_is_stated(tmp_path: Path) -> None:
    assert translate("output == 5").caveats == (
        "`==` reads text as a number: a decimal number as JavaScript's Number() does, but not "
        "0x, 0o or 0b numbers",
        "`==` reads text as a number with Python's float(), which also reads `1_000` (NaN in "
        "JavaScript)",
    )
    assert "an array or object" in translate("JSON.parse(output).a == 'x'").caveats[0]
    assert translate("output === 'x'").caveats == ()
    tests = " [{vars: {q: a}, assert: [{type: javascript, value: output == 5}]}]\n"
    done, suite = _import(tmp_path, _asking_gpt_4o_mini(tests))
    assert "assertion `javascript`: `==` reads text as a number" in done.output
    assert "# approximately: `==` reads text as a number" in suite.read_text(encoding="utf-8")


# A test without assertions passes in promptfoo when the provider answered.


def test_a_test_without_assertions_gets_the_answered_check(tmp_path: Path) -> None:
    tests = """
  - description: smoke
    vars: {q: a}
  - description: graded
    vars: {q: a}
    assert: [{type: not-is-json}]
"""
    done, suite = _import(tmp_path, _asking_gpt_4o_mini(tests))
    _loaded(done, suite)
    checks = _checks(suite)
    assert checks["smoke"] == [{"type": "answered"}]
    assert checks["graded"] == [
        {"type": "expr", "value": "(output | from_json(tool_calls)) is sameas tool_calls"}
    ]
    assert "promptfoo passes the test when the provider answered" in suite.read_text()


# Nunjucks' `load` is JSON.parse: promptum's `from_json`.


def test_the_load_filter_becomes_from_json(tmp_path: Path) -> None:
    config = """
prompts: ["Greet {{ (person | load).name }}"]
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {person: '{"name": "Ada"}'}, assert: [{type: contains, value: Ada}]}]
"""
    done, suite = _import(tmp_path, config)
    [case] = _loaded(done, suite).cases
    assert yaml.safe_load(suite.read_text())["prompt"] == "Greet {{ (person | from_json).name }}"
    assert case.messages[-1].content == "Greet Ada"


# Anthropic's tool format is rewritten as OpenAI function schemas.


def test_anthropic_tools_become_function_schemas(tmp_path: Path) -> None:
    config = """
prompts: ["Price of {{ticker}}"]
providers:
  - id: anthropic:messages:claude-3-5-haiku-latest
    config:
      tools:
        - name: get_price
          description: A stock price
          input_schema: {type: object, properties: {ticker: {type: string}}, required: [ticker]}
        - {type: web_search_20250305, name: web_search}
tests: [{vars: {ticker: ACME}, assert: [{type: contains, value: get_price}]}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    assert yaml.safe_load(suite.read_text())["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_price",
                "description": "A stock price",
                "parameters": {
                    "type": "object",
                    "properties": {"ticker": {"type": "string"}},
                    "required": ["ticker"],
                },
            },
        }
    ]
    assert "tool web_search: a tool the provider runs itself" in _not_converted(done)
    assert "Anthropic tool calls: promptfoo's Anthropic output is text" in done.output


# Content parts: text items joined, files as promptum's parts, an image var as its path.


def test_a_chat_file_of_text_parts_becomes_text_and_its_cache_hints_are_stated(
    tmp_path: Path,
) -> None:
    chat = """
messages:
  - role: system
    content: [{type: text, text: Be concise, cache_control: {type: ephemeral}}]
  - role: user
    content: [{type: text, text: "Answer this riddle:"}, {type: text, text: "{{riddle}}"}]
"""
    config = """
prompts: [file://prompt.yaml]
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {riddle: What has keys?}, assert: [{type: icontains, value: piano}]}]
"""
    done, suite = _import(tmp_path, config, **{"prompt.yaml": chat})
    case = next(iter(_loaded(done, suite).cases))
    assert [(m.role, m.content) for m in case.messages] == [
        ("system", "Be concise"),
        ("user", "Answer this riddle:\n\nWhat has keys?"),
    ]
    assert "cache_control left out: promptum sets no prompt-cache breakpoints" in done.output


def test_an_image_var_and_an_image_item_become_a_part_sending_that_file(tmp_path: Path) -> None:
    chat = json.dumps(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this image?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,{{image}}"}},
                ],
            }
        ]
    )
    config = """
prompts: [file://chat.json]
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {image: file://cat.png}, assert: [{type: icontains, value: cat}]}]
"""
    (tmp_path / "cat.png").write_bytes(PNG + bytes(64))
    done, suite = _import(tmp_path, config, **{"chat.json": chat})
    (message,) = next(iter(_loaded(done, suite).cases)).messages
    assert message.content == "What is in this image?"
    (part,) = message.parts or ()
    assert part.type == "image"
    assert part.media_type == "image/png"
    assert part.sha256 == hashlib.sha256((tmp_path / "cat.png").read_bytes()).hexdigest()
    assert "the var is the file's path" in done.output  # stated, not silent


def test_a_content_item_with_no_promptum_part_is_refused_saying_why(tmp_path: Path) -> None:
    chat = '[{"role": "user", "content": [{"type": "video_url", "video_url": {"url": "x"}}]}]'
    config = """
prompts: [file://chat.json, "Plain {{x}}"]
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {x: a}, assert: [{type: contains, value: a}]}]
"""
    done, suite = _import(tmp_path, config, **{"chat.json": chat})
    _loaded(done, suite)
    assert (
        "prompt chat.json: a `video_url` content item has no promptum part (text, image, "
        "document, audio)"
    ) in _not_converted(done)


def test_a_conversation_config_becomes_one_case_whose_turns_are_its_tests(
    tmp_path: Path,
) -> None:
    config = """
prompts:
  - |
    {% for c in _conversation %}User: {{ c.input }} / Assistant: {{ c.output }}
    {% endfor %}User: {{ question }}
providers: [openai:chat:gpt-4o-mini]
tests:
  - description: first
    vars: {question: "My name is {{Ada}}"}
    assert: [{type: contains, value: Ada}]
  - description: second
    vars: {question: What is my name}
    assert: [{type: icontains, value: ada}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    [case] = yaml.safe_load(suite.read_text())["test_cases"]
    first, second = case["turns"]
    # The var's text is a literal: its `{{Ada}}` is text, not a template.
    assert first["query"].endswith('User: {{ ("My name is {" ~ "{Ada}" ~ "}") }}\n')
    assert "{% for c in turns %}User: {{ c.query }} / Assistant: {{ c.reply }}" in first["query"]
    assert second["query"].endswith('User: {{ "What is my name" }}\n')
    assert first["checks"] == [{"type": "contains", "value": "Ada"}]
    assert second["checks"][0]["type"] == "expr"
    assert "`_conversation`: the tests are the turns of one case" in done.output
    [loaded] = load_suite(suite).cases
    assert len(loaded.turns) == 2  # rendered as each turn comes (the harness runs them)


def test_a_conversation_on_several_prompts_is_refused_saying_why(tmp_path: Path) -> None:
    config = """
prompts: ["{% for c in _conversation %}{{ c.output }}{% endfor %}{{ q }}", "Plain {{ q }}"]
providers: [openai:chat:gpt-4o-mini]
tests: [{vars: {q: a}, assert: [{type: contains, value: a}]}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    assert (
        "prompt prompt-1: it reads `_conversation`: promptum runs a conversation on no prompt "
        "variants" in _not_converted(done)
    )


# A `context` var given as a file is the case's context.


def test_a_file_context_var_is_the_cases_context(tmp_path: Path) -> None:
    config = """
prompts: ["{{q}} Facts: {{context}}"]
providers: [openai:chat:gpt-4o-mini]
tests:
  - vars: {q: Where?, context: file://docs/paris.txt}
    assert: [{type: context-faithfulness}]
"""
    done, suite = _import(tmp_path, config, **{"docs/paris.txt": "Paris is in France.\n"})
    [case] = _loaded(done, suite).cases
    written = yaml.safe_load(suite.read_text())["test_cases"][0]
    assert written["context"] == "{{ context_file }}"
    assert written["vars"]["context_file"] == {"file": "docs/paris.txt"}
    assert case.context == ("Paris is in France.\n",)
    assert "Facts: Paris is in France." in case.messages[-1].content


# The echo provider answers with the prompt: a Python target that echoes.


def test_the_echo_provider_is_a_target_that_echoes(tmp_path: Path) -> None:
    config = """
prompts: ["Echo {{thing}}"]
providers: [echo]
tests: [{vars: {thing: marbles}, assert: [{type: equals, value: Echo marbles}]}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    report = tmp_path / "report.json"
    ran = CliRunner().invoke(main, ["run", str(suite), "--no-store", "-o", str(report)])
    assert ran.exit_code == 0, ran.output
    [result] = json.loads(report.read_text())["results"]
    assert result["status"] == "pass"
    assert result["completion"]["text"] == "Echo marbles"


# promptfoo's red team: plugins become goals, strategies strategies; the rest is said.


def test_redteam_plugins_and_strategies_map_onto_goals_and_strategies(tmp_path: Path) -> None:
    config = """
prompts: ["{{query}}"]
targets: [openai:chat:gpt-4o-mini]
redteam:
  purpose: A bank's support assistant
  numTests: 2
  plugins:
    - data-exfil
    - id: policy
      config: {policy: Never promise a refund.}
    - harmful:hate
    - harmful:cybercrime
    - harmful:insults
    - pii:direct
  strategies: [base64, jailbreak, hex]
tests: [{vars: {query: Hello}, assert: [{type: contains, value: a}]}]
"""
    done, suite = _import(tmp_path, config)
    loaded = _loaded(done, suite)
    section = yaml.safe_load(suite.read_text())["redteam"]
    assert section == {
        "goals": [
            "exfiltration",
            "policy",
            "harmful:hate",
            "harmful:non_violent_crimes",
            "pii",
        ],
        "strategies": ["direct", "base64"],
        "per_goal": 2,
        "policy": "Never promise a refund.",
    }
    assert any(case.id.startswith("rt-exfiltration-") for case in loaded.cases)
    skipped = _not_converted(done)
    assert "redteam plugin harmful:insults: promptum has no such attack goal" in skipped
    assert any(case.id.startswith("rt-harmful-") for case in loaded.cases)
    assert (
        "redteam strategy jailbreak: promptum's equivalent is the `redteam:` section's "
        "`attacker:` with `rounds:` (PAIR)" in skipped
    )
    assert "redteam strategy hex: promptum has no such strategy" in skipped
    assert "redteam `purpose`: promptum's attacks ride on the suite's own prompts" in skipped
    assert "redteam plugin data-exfil: goal `exfiltration`" in done.output


def test_a_redteam_goal_the_suite_cannot_support_is_left_out_saying_why(tmp_path: Path) -> None:
    system = "You are a bank assistant."
    config = f"""
prompts:
  - '[{{"role": "system", "content": "{system}"}}, {{"role": "user", "content": "{{{{q}}}}"}}]'
providers: [openai:chat:gpt-4o-mini]
redteam: {{plugins: [prompt-extraction]}}
tests: [{{vars: {{q: Hello}}, assert: [{{type: contains, value: a}}]}}]
"""
    done, suite = _import(tmp_path, config)
    _loaded(done, suite)
    assert "redteam" not in yaml.safe_load(suite.read_text())
    assert (
        "promptfooconfig.yaml:5: redteam: promptum refused it: redteam.goals[0]: goal "
        "'prompt_leak' cannot be used" in _not_converted(done)
    )
