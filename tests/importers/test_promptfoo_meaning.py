"""An imported promptfoo config means what promptfoo makes of it, or the import says it does not.

Each test reproduces a change of meaning issue 36 found the importer making without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.suites import Suite, load_suite


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
    assert "value: 'No'" in text
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
    config = """
prompts: ["{{q}}"]
providers: [openai:chat:gpt-4o-mini]
tests:
  - vars: {q: capital}
    assert: [{type: ends-with, value: France.}, {type: contains, value: Paris}]
"""
    done, suite = _import(tmp_path, config)
    [case] = _loaded(done, suite).cases
    assert [check.type for check in case.checks] == ["contains"]
    assert "promptfooconfig.yaml:6: assertion `ends-with`: promptfoo has no such assertion" in (
        _not_converted(done)
    )


# JavaScript of one line runs as `return <code>` in promptfoo: `return x` there is
# `return return x`, a SyntaxError, and the assertion fails.


def test_a_one_line_return_is_refused_and_a_function_body_converts(tmp_path: Path) -> None:
    config = """
prompts: ["{{q}}"]
providers: [openai:chat:gpt-4o-mini]
tests:
  - vars: {q: a}
    assert:
      - {type: javascript, value: "return output.length > 10;"}
      - type: javascript
        value: |
          return output.length > 3;
"""
    done, suite = _import(tmp_path, config)
    [case] = _loaded(done, suite).cases
    assert [check.value for check in case.checks] == ["(output | length) > 3"]
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


def test_validate_warns_of_a_cost_bound_on_a_model_without_a_price(tmp_path: Path) -> None:
    config = """
prompts: ["{{q}}"]
providers: [openai:chat:gpt-4o-mini, openai:chat:acme-finetune]
tests: [{vars: {q: a}, assert: [{type: cost, threshold: 0.002}]}]
"""
    _, suite = _import(tmp_path, config)
    checked = CliRunner().invoke(main, ["validate", str(suite)])
    assert checked.exit_code == 0, checked.output
    [warning] = [line for line in checked.output.splitlines() if "max_cost_usd" in line]
    assert warning.startswith(f"  warning: {suite}:")
    assert "bounds the cost of openai/acme-finetune, which has no price" in warning
    priced = "pricing:\n  openai/acme-finetune: {input: 1.0, output: 2.0}\n"
    suite.write_text(suite.read_text(encoding="utf-8") + priced, encoding="utf-8")
    checked = CliRunner().invoke(main, ["validate", str(suite)])
    assert checked.exit_code == 0, checked.output
    assert "max_cost_usd" not in checked.output
