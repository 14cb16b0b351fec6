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

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_validate_reports_each_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("good.yaml").write_text(
        "test_cases:\n  - {id: a, query: q, checks: [{type: is_valid_json}]}\n"
    )
    Path("bad.yaml").write_text("test_cases:\n  - {id: a, query: q, checks: [{type: is_json}]}\n")
    result = CliRunner().invoke(main, ["validate", "good.yaml", "bad.yaml"])
    assert result.exit_code == 2
    assert "✓ good.yaml: 1 case, 1 check" in result.output
    assert "✗ bad.yaml: 1 problem found:" in result.output
    assert "bad.yaml:2:32: test_cases[0].checks[0]: unknown check type 'is_json'" in result.output
    assert "Did you mean 'is_valid_json'?" in result.output
    assert "1 file is invalid" in result.output

    assert CliRunner().invoke(main, ["validate", "good.yaml"]).exit_code == 0


def test_validate_rejects_duplicate_case_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("dup.yaml").write_text("test_cases:\n  - {id: a, query: q}\n  - {id: a, query: r}\n")
    result = CliRunner().invoke(main, ["validate", "dup.yaml"])
    assert result.exit_code == 2
    assert "dup.yaml:3: duplicate case id 'a' in suite 'dup', first defined at dup.yaml:2" in (
        result.output
    )


def test_validate_rejects_two_suites_of_one_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("one.yaml").write_text("test_cases:\n  - {id: a, query: q}\n")
    Path("two.yaml").write_text("name: one\ntest_cases:\n  - {id: a, query: r}\n")
    result = CliRunner().invoke(main, ["validate", "one.yaml", "two.yaml"])
    assert result.exit_code == 2
    assert "two.yaml: suite name 'one' is also the name of one.yaml" in result.output


def test_validate_names_the_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("broken.yaml").write_text("test_cases:\n  - id: a\n   query: [unclosed\n")
    result = CliRunner().invoke(main, ["validate", "broken.yaml"])
    assert result.exit_code == 2
    assert result.output.startswith("✗ broken.yaml:3:")


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


def test_init_writes_a_valid_starter_and_never_overwrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
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

    again = CliRunner().invoke(main, ["init"])
    assert again.exit_code == 2
    assert "promptum.yaml exists; pass --force" in again.output
    assert CliRunner().invoke(main, ["init", "--force"]).exit_code == 0


def test_init_and_schema_write_into_new_folders_and_fail_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
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
