"""What real promptfoo configs hold: descriptions over several lines, odd YAML, their names."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from promptum.cli import main
from promptum.suites import load_suite

_TESTS = """\
prompts:
  - "Answer: {{question}}"
providers:
  - openai:gpt-4o-mini
tests:
  - description: |
      Refund questions get the policy,
      not a promise
    vars:
      question: Can I get a refund?
    assert:
      - type: contains
        value: refund
"""


def _import(config: Path, output: Path) -> Result:
    return CliRunner().invoke(main, ["import", "promptfoo", str(config), "-o", str(output)])


def _config(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "promptfooconfig.yaml"
    config.write_text(text, encoding="utf-8")
    return config


def _converted(folder: Path, text: str, output: Path | None = None) -> Path:
    """The suite the config `text`, written into `folder`, converts into (`folder/suite.yaml`
    unless `output` is given)."""
    output = output or folder / "suite.yaml"
    done = _import(_config(folder, text), output)
    assert done.exit_code == 0, done.output
    return output


def test_a_description_over_several_lines_converts_into_a_suite_that_loads(
    tmp_path: Path,
) -> None:
    converted = _converted(tmp_path / "bot", _TESTS)
    written = converted.read_text()
    assert "#   not a promise" in written or "# not a promise" in written
    suite = load_suite(converted)
    assert [case.id for case in suite.cases] == ["refund-questions-get-the-policy-not-a-promise"]


def test_the_config_description_over_several_lines_is_the_suite_description(
    tmp_path: Path,
) -> None:
    text = "description: |\n  Support bot:\n  refunds and shipping\n" + _TESTS
    converted = _converted(tmp_path / "bot", text)
    written = yaml.safe_load(converted.read_text())
    assert written["description"] == "Support bot:\nrefunds and shipping\n"
    assert load_suite(converted).name == "support-bot-refunds-and-shipping"


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("!foo x", 3),  # a tag YAML does not know
        ("2024-13-45", 3),  # read as a date that does not exist
        ("!!int many", 3),
    ],
)
def test_a_value_yaml_cannot_read_is_a_located_error(value: str, line: int, tmp_path: Path) -> None:
    config = _config(tmp_path, f"prompts: [a]\ntests:\n  - vars: {{q: {value}}}\n")
    done = _import(config, tmp_path / "suite.yaml")
    assert done.exit_code == 2, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert f"promptfooconfig.yaml:{line}:" in done.output
    assert not (tmp_path / "suite.yaml").exists()


def test_a_comment_with_a_line_break_yaml_knows_stays_a_comment(tmp_path: Path) -> None:
    # Written escaped: YAML reads \u2028 and \x85 as line breaks, as it does \n.
    converted = _converted(
        tmp_path,
        'prompts: [a]\ntests:\n  - description: "refunds\\u2028not a promise\\x85ever"\n'
        "    assert: [{type: contains, value: refund}]\n",
    )
    assert [case.id for case in load_suite(converted).cases] == ["refunds-not-a-promise-ever"]


def test_an_imported_suite_is_named_by_the_config_description(tmp_path: Path) -> None:
    converted = _converted(tmp_path / "bot", "description: Customer Support — Refunds!\n" + _TESTS)
    assert load_suite(converted).name == "customer-support-refunds"


def test_an_imported_suite_without_a_description_is_named_by_the_config_folder(
    tmp_path: Path,
) -> None:
    converted = _converted(tmp_path / "Refund Bot", _TESTS, tmp_path / "out" / "suite.yaml")
    assert load_suite(converted).name == "refund-bot"
