"""`promptum validate`, `promptum schema` and `promptum init`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from promptum.cli import main
from promptum.suites import load_suite
from tests.support.cli import invoke, usage_error, write

EXAMPLES = Path(__file__).parents[2] / "examples"

# Each test writes its files into a fresh working folder.
pytestmark = pytest.mark.usefixtures("project")


def test_validate_reports_each_file() -> None:
    write("good.yaml", "test_cases:\n  - {id: a, query: q, checks: [{type: is_valid_json}]}\n")
    write("bad.yaml", "test_cases:\n  - {id: a, query: q, checks: [{type: is_json}]}\n")
    output = usage_error("validate", "good.yaml", "bad.yaml")
    assert "✓ good.yaml: 1 case, 1 check" in output
    assert "✗ bad.yaml: 1 problem found:" in output
    assert "bad.yaml:2:32: test_cases[0].checks[0]: unknown check type 'is_json'" in output
    assert "Did you mean 'is_valid_json'?" in output
    assert "1 file is invalid" in output

    assert invoke("validate", "good.yaml").exit_code == 0


def test_validate_rejects_duplicate_case_ids() -> None:
    write("dup.yaml", "test_cases:\n  - {id: a, query: q}\n  - {id: a, query: r}\n")
    assert "dup.yaml:3: duplicate case id 'a' in suite 'dup', first defined at dup.yaml:2" in (
        usage_error("validate", "dup.yaml")
    )


def test_validate_rejects_two_suites_of_one_name() -> None:
    write("one.yaml", "test_cases:\n  - {id: a, query: q}\n")
    write("two.yaml", "name: one\ntest_cases:\n  - {id: a, query: r}\n")
    assert "two.yaml: suite name 'one' is also the name of one.yaml" in (
        usage_error("validate", "one.yaml", "two.yaml")
    )


def test_validate_names_the_file_once() -> None:
    write("broken.yaml", "test_cases:\n  - id: a\n   query: [unclosed\n")
    assert usage_error("validate", "broken.yaml").startswith("✗ broken.yaml:3:")


def test_every_example_suite_validates() -> None:
    suites = sorted(str(p) for p in EXAMPLES.glob("*.yaml"))
    assert suites
    result = CliRunner().invoke(main, ["validate", *suites])
    assert result.exit_code == 0, result.output


def test_schema_is_printed_and_written(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "test_cases" in schema["properties"]

    target = tmp_path / "promptum.schema.json"
    assert CliRunner().invoke(main, ["schema", "-o", str(target)]).exit_code == 0
    assert json.loads(target.read_text()) == schema


def test_init_writes_a_valid_starter_and_never_overwrites() -> None:
    result = CliRunner().invoke(main, ["init"])
    assert result.exit_code == 0
    assert "promptum run promptum.yaml" in result.output
    suite = load_suite("promptum.yaml")
    assert [c.id for c in suite.cases] == ["capital", "arithmetic", "city-extraction"]
    assert all(c.models == ("local/smollm2",) for c in suite.cases)
    schema = json.loads(CliRunner().invoke(main, ["schema"]).output)
    jsonschema.validate(yaml.safe_load(Path("promptum.yaml").read_text()), schema)
    # The schema the starter's first line points editors at is written beside it.
    assert (
        Path("promptum.yaml")
        .read_text()
        .startswith("# yaml-language-server: $schema=promptum.schema.json\n")
    )
    assert json.loads(Path("promptum.schema.json").read_text()) == schema

    assert "promptum.yaml exists; pass --force" in usage_error("init")
    assert CliRunner().invoke(main, ["init", "--force"]).exit_code == 0


def test_init_and_schema_write_into_new_folders_and_fail_cleanly() -> None:
    assert CliRunner().invoke(main, ["init", "evals/starter.yaml"]).exit_code == 0
    assert load_suite("evals/starter.yaml").cases
    assert CliRunner().invoke(main, ["schema", "-o", "evals/schema.json"]).exit_code == 0
    assert json.loads(Path("evals/schema.json").read_text())["title"] == "promptum suite"

    Path("file").write_text("")
    for args in (["init", "file/x.yaml"], ["schema", "-o", "file/s.json"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: cannot write file/")
        assert result.exception is None or isinstance(result.exception, SystemExit)
