"""YAML that does not parse as written is a located error: an unquoted `{{ template }}` (with
the quoting to write), a key that is a list or mapping, a Helm template, an empty case list."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import invoke, write
from tests.support.suites import TARGET_SUITE as HEAD
from tests.support.suites import load_error

GOOD = HEAD + "test_cases: [{id: a, query: hi}]\n"


def test_an_unquoted_template_in_a_case_is_located_with_the_quoting_to_write(folder: Path) -> None:
    suite = write(folder / "s.yaml", HEAD + "test_cases:\n  - id: a\n    query: {{ country }}\n")
    message = load_error(suite)
    assert message.startswith(f"{suite}:5:12: test_cases[0].query: ")
    assert "Jinja template" in message
    assert '`query: "{{ country }}"`' in message


def test_an_unquoted_template_in_a_setting_is_located(folder: Path) -> None:
    suite = write(folder / "s.yaml", HEAD + "vars: {a: {{ b }}}\ntest_cases: [{id: a}]\n")
    assert load_error(suite).startswith(f"{suite}:3:11: vars.a: the value looks like a Jinja")


@pytest.mark.parametrize(
    ("text", "where", "said"),
    [
        (HEAD + "? [a, b]\n: c\ntest_cases: [{id: a, query: hi}]\n", "3:3", "a key here is a list"),
        (GOOD + "  - id: b\n    ? [a, b]\n    : c\n", "", "a key here is a list"),
        ("{{ x }}: 1\n" + GOOD, "1:1", "the key looks like a Jinja template"),
    ],
)
def test_a_key_that_is_a_list_or_mapping_is_located(
    folder: Path, text: str, where: str, said: str
) -> None:
    text = text.replace("test_cases: [{id: a, query: hi}]\n  - id: b", "test_cases:\n  - id: b")
    suite = write(folder / "s.yaml", text)
    message = load_error(suite)
    assert message.startswith(f"{suite}:{where}" if where else f"{suite}:")
    assert said in message
    assert "Traceback" not in message


def test_the_template_error_reaches_validate_with_exit_2(folder: Path) -> None:
    write(folder / "s.yaml", HEAD + "test_cases:\n  - id: a\n    query: {{ country }}\n")
    result = invoke("validate", "s.yaml")
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "s.yaml:5:12: test_cases[0].query" in result.output


def test_a_helm_template_that_does_not_parse_is_hinted(folder: Path) -> None:
    suite = write(
        folder / "cm.yaml",
        'apiVersion: v1\ntest_cases:\n{{ include "x" . | indent 4 }}\n',
    )
    assert "a Jinja or Helm template is YAML only once rendered" in load_error(suite)


def test_an_empty_list_of_cases_is_located_at_its_key(folder: Path) -> None:
    suite = write(folder / "s.yaml", HEAD + "test_cases: []\n")
    message = load_error(suite)
    assert f"{suite}:3:1: test_cases: `test_cases` holds no case" in message
