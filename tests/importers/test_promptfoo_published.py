"""promptfoo's published examples: each converts and validates, or is refused saying why.

The configs are copies of promptfoo's ``examples/`` in benchmarks/promptfoo_differential/
published (its README says which side files are missing); the bugs they showed are pinned
below with configs of their shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from benchmarks.promptfoo_differential.published_examples import (
    PUBLISHED,
    Examined,
    examine,
    examine_all,
    published_configs,
)
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.suites import load_suite

MEASURED = (40, 33)
"""Published configs, and those that convert into a suite that validates, as last measured."""


@pytest.fixture(scope="module")
def examined() -> list[Examined]:
    """Every published config through the importer (no model is called)."""
    return examine_all()


def test_the_published_examples_are_there() -> None:
    assert len(published_configs()) >= MEASURED[0]


def test_every_published_config_converts_and_validates_or_is_refused_saying_why(
    examined: list[Examined],
) -> None:
    # examine raises anything but a user error (a traceback): the test fails with it
    assert len(examined) == len(published_configs())  # none dropped silently
    for row in examined:
        assert row.converts == row.validates, row  # a converted suite always validates
        if not row.converts:
            assert row.reason, row
            assert row.reason != "(no message)", row


def test_no_fewer_published_configs_convert_than_measured(examined: list[Examined]) -> None:
    assert sum(row.validates for row in examined) >= MEASURED[1]


def test_a_refused_config_writes_no_suite(tmp_path: Path) -> None:
    row = examine(PUBLISHED / "claude-vision" / "promptfooconfig.yaml", tmp_path)
    assert not row.converts
    assert "no prompt could be converted" in row.reason
    assert "prompt.json" in row.reason  # the why, not only that it was refused
    assert not (tmp_path / "suite.yaml").exists()


def _import(folder: Path, prompt: str, tests: str) -> Result:
    """Import a config of one `prompt`, answered by gpt-4o-mini, whose tests are `tests`."""
    config = folder / "promptfooconfig.yaml"
    text = f"prompts: ['{prompt}']\nproviders: [openai:gpt-4o-mini]\ntests:\n{tests}"
    config.write_text(text, encoding="utf-8")
    output = folder / "suite.yaml"
    return CliRunner().invoke(main, ["import", "promptfoo", str(config), "-o", str(output)])


def _only_case(folder: Path) -> dict[str, Any]:
    [case] = yaml.safe_load((folder / "suite.yaml").read_text())["test_cases"]
    assert isinstance(case, dict)
    return case


def test_assertions_after_a_json_transform_read_its_object(tmp_path: Path) -> None:
    # examples/json-output: `options.transform: JSON.parse(output)`, then `output.color`
    tests = """\
  - vars: {item: Passion fruit}
    options: {transform: JSON.parse(output)}
    assert:
      - type: javascript
        value: output.color === 'purple' && output.countries.includes('Brazil')
      - {type: contains-any, transform: output.countries, value: [Guatemala, India]}
"""
    done = _import(tmp_path, "Describe {{item}} as JSON", tests)
    assert done.exit_code == 0, done.output
    case = _only_case(tmp_path)
    assert case["transform"] == "output | from_json"
    assert case["checks"][0]["value"] == (
        '((answer)["color"] == "purple") and ("Brazil" in (answer)["countries"])'
    )
    assert case["checks"][1]["transform"] == '(answer)["countries"]'
    assert "a number or bool as its JSON text" in done.output  # the one difference, stated
    load_suite(tmp_path / "suite.yaml")


def test_tests_generated_by_code_are_refused_as_code(tmp_path: Path) -> None:
    # examples/javascript-test-cases: `file://x.ts:fn` and `{path: file://x.ts:fn, config}`
    tests = """\
  - file://dynamicTests.ts:generateFromDatabase
  - {path: 'file://dynamicTests.ts:generateFromDatabase', config: {dataset: basic}}
"""
    done = _import(tmp_path, "Translate {{text}}", tests)
    assert done.exit_code == 2
    assert "no test could be converted" in done.output
    assert done.output.count("tests written by code run no code in promptum") == 2
    assert "test key `path`" not in done.output
    assert "Traceback" not in done.output


def test_a_config_whose_every_test_is_refused_says_so(tmp_path: Path) -> None:
    # examples/nunjucks-custom-filters: its prompts use a filter written in JavaScript
    tests = "  - vars: {language: French, body: Hello world}\n"
    done = _import(tmp_path, "Rephrase in {{language}}: {{body | allcaps}}", tests)
    assert done.exit_code == 2
    assert "no test could be converted: promptum refused every one" in done.output
    assert "No filter named 'allcaps'" in done.output
    assert not (tmp_path / "suite.yaml").exists()


def test_a_python_assertion_whose_file_is_missing_is_left_out_saying_so(tmp_path: Path) -> None:
    # examples/python-assert: the suite would validate, then fail every run
    tests = """\
  - vars: {topic: fruit}
    assert:
      - {type: python, value: 'file://assert.py:get_assert'}
      - {type: contains, value: fruit}
"""
    done = _import(tmp_path, "Tell me about {{topic}}", tests)
    assert done.exit_code == 0, done.output
    assert "assertion `python`: assert.py: no such file" in done.output
    assert _only_case(tmp_path)["checks"] == [{"type": "contains", "value": "fruit"}]


def test_the_tests_of_a_tests_file_are_located_at_their_own_lines(tmp_path: Path) -> None:
    # every line of a config's file is located as it is read (a list document too)
    (tmp_path / "tests.yaml").write_text(
        "- vars: {topic: cat}\n  assert:\n    - type: contains\n      value: cat\n",
        encoding="utf-8",
    )
    done = _import(tmp_path, "Tell me about {{topic}}", "  - file://tests.yaml\n")
    assert done.exit_code == 0, done.output
    assert (
        "      # tests.yaml:3\n      - {type: contains, value: cat}\n"
        in (tmp_path / "suite.yaml").read_text()
    )
