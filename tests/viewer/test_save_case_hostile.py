"""Save as case with text that tries to break out of the case: it stays one text, read back."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.suites import load_suite
from promptum.viewer._save_case import SourceFile, append_case, write_new_suite

SUITE = """\
# keep me
name: hostile
models: [local/smollm2]
test_cases:
  - id: base   # the reviewed case
    query: "What is the capital of France?"
"""
HOSTILE = [
    "Paris\nid: injected",  # a newline then a key
    "x: y # not a comment",
    "{a: b}",
    "[1, 2]",
    "&anchor text",
    "*alias",
    "!!python/object/apply:os.system [echo pwned]",
    "- a list item",
    "--- a new document",
    "%YAML 1.1",
    "yes",  # a bool to YAML 1.1 (the suite loader), text to ruamel's YAML 1.2
    "on",
    "1:20",  # a base-60 number to YAML 1.1
    "null",
    "a\u2028line separator",
    "a\u2029paragraph separator",
    "a\x85next line",
    "a\rcarriage\r\nreturns",
    "tab\there and \x0bvertical\x0cform feed",
    "trailing spaces   \n  and leading",
    "ends with newlines\n\n",
    "\ufeffa byte-order mark",
    "emoji 😀 and é",
    "'single' \"double\" `back` \\ backslash",
    "x" * 4000,
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["contains", "expected_behavior"])
@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_the_expectation_stays_one_text_of_the_new_case(
    tmp_path: Path, value: str, kind: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    where = append_case(SourceFile(path, 5), _sha(path), "yes", kind, value)
    after = path.read_text(encoding="utf-8")
    assert after.startswith(SUITE)  # every byte before the new case kept
    base, added = load_suite(path).cases  # the loader `validate` uses reads both
    assert added.source == f"{where.path}:{where.line}"  # the line the page says
    assert (base.id, added.id) == ("base", "yes")  # an id YAML 1.1 would read as true
    assert added.messages == base.messages
    if kind == "expected_behavior":
        assert added.grading.expected_behavior == value
    else:
        assert [(c.type, c.value) for c in added.grading.checks] == [("contains", value)]


@pytest.mark.parametrize("value", ["on", "a\x85b\u2028c", "Paris\nid: injected"])
def test_a_new_suite_file_reads_the_expectation_back(tmp_path: Path, value: str) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    written = write_new_suite(
        SourceFile(path, 5), _sha(path), "new.yaml", "1_000", "contains", value
    )
    (added,) = load_suite(written.path).cases
    assert added.source == f"{written.path}:{written.line}"
    assert added.id == "1_000"
    assert added.grading.checks[0].value == value
    done = CliRunner().invoke(main, ["validate", str(written.path), str(path)])
    assert done.exit_code == 0, done.output


def test_a_case_goes_before_a_document_end_marker(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE + "  # last case above\n...\n# after the document\n", encoding="utf-8")
    append_case(SourceFile(path, 5), _sha(path), "new", "contains", "Paris")
    after = path.read_text(encoding="utf-8")
    assert after.startswith(SUITE + "  # last case above\n")
    assert after.endswith("      value: Paris\n...\n# after the document\n")
    assert [case.id for case in load_suite(path).cases] == ["base", "new"]
