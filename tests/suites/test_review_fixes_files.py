"""Review fixes: templates and complex keys, non-suite YAML in folders, unreadable paths."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.errors import ConfigError
from promptum.suites import find_suites, load_suite, load_suites
from tests.support.privileges import as_a_user

HEAD = "name: x\ntarget: app.py:f\n"
GOOD = HEAD + "test_cases: [{id: a, query: hi}]\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with the target the suites name."""
    (tmp_path / "app.py").write_text("def f(query):\n    return 'ok'\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return str(caught.value)


def test_an_unquoted_template_in_a_case_is_located_with_the_quoting_to_write(folder: Path) -> None:
    suite = _write(folder / "s.yaml", HEAD + "test_cases:\n  - id: a\n    query: {{ country }}\n")
    message = _error(suite)
    assert message.startswith(f"{suite}:5:12: test_cases[0].query: ")
    assert "Jinja template" in message
    assert '`query: "{{ country }}"`' in message


def test_an_unquoted_template_in_a_setting_is_located(folder: Path) -> None:
    suite = _write(folder / "s.yaml", HEAD + "vars: {a: {{ b }}}\ntest_cases: [{id: a}]\n")
    assert _error(suite).startswith(f"{suite}:3:11: vars.a: the value looks like a Jinja")


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
    suite = _write(folder / "s.yaml", text)
    message = _error(suite)
    assert message.startswith(f"{suite}:{where}" if where else f"{suite}:")
    assert said in message
    assert "Traceback" not in message


def test_the_template_error_reaches_validate_with_exit_2(folder: Path) -> None:
    _write(folder / "s.yaml", HEAD + "test_cases:\n  - id: a\n    query: {{ country }}\n")
    result = CliRunner().invoke(main, ["validate", "s.yaml"])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "s.yaml:5:12: test_cases[0].query" in result.output


def test_a_helm_template_that_does_not_parse_is_hinted(folder: Path) -> None:
    suite = _write(
        folder / "cm.yaml",
        'apiVersion: v1\ntest_cases:\n{{ include "x" . | indent 4 }}\n',
    )
    assert "a Jinja or Helm template is YAML only once rendered" in _error(suite)


def test_a_folder_skips_yaml_that_names_no_suite_key_with_a_note(folder: Path) -> None:
    _write(folder / "deploy" / "multi.yaml", "apiVersion: v1\nkind: A\n---\nkind: B\n")
    _write(folder / "chart" / "cm.yaml", "metadata:\n  name: {{ .Values.name }}\n")
    _write(folder / "chart" / "broken.yaml", "[1, 2\n")
    _write(folder / "s" / "suite.yaml", GOOD)
    _write(folder / "s" / "app.py", (folder / "app.py").read_text())
    found = find_suites([Path()])
    assert found.suites == [Path("s/suite.yaml")]
    reasons = dict(found.skipped)
    assert "several YAML documents" in reasons[Path("deploy/multi.yaml")]
    assert "does not load as YAML" in reasons[Path("chart/cm.yaml")]
    assert "does not load as YAML" in reasons[Path("chart/broken.yaml")]
    result = CliRunner().invoke(main, ["validate", "."])
    assert result.exit_code == 0, result.output
    assert "deploy/multi.yaml: skipped, not a suite" in result.output


def test_a_broken_file_that_names_a_suite_key_is_an_error_not_skipped(folder: Path) -> None:
    _write(folder / "multi.yaml", GOOD + "---\nother: 1\n")
    assert find_suites([Path()]).suites == [Path("multi.yaml")]
    assert "but found another document" in _error(folder / "multi.yaml")


def test_validate_of_a_folder_reports_every_invalid_file_and_their_count(folder: Path) -> None:
    _write(folder / "mix" / "bad.yaml", "name: bad\ntest_cases: [{id: a, querry: hi}]\n")
    _write(folder / "mix" / "good.yaml", GOOD)
    _write(folder / "mix" / "app.py", (folder / "app.py").read_text())
    (folder / "mix" / "loopy.yaml").symlink_to("loopy.yaml")
    result = CliRunner().invoke(main, ["validate", "mix"])
    assert result.exit_code == 2
    assert "✓ mix/good.yaml" in result.output
    assert "mix/bad.yaml:2:22: test_cases[0].querry" in result.output
    assert "✗ mix/loopy.yaml: cannot read the file" in result.output
    assert "2 files are invalid" in result.output


def test_run_refuses_a_folder_naming_every_broken_suite(folder: Path) -> None:
    _write(folder / "mix" / "bad.yaml", "name: bad\ntest_cases: [{id: a, querry: hi}]\n")
    (folder / "mix" / "loopy.yaml").symlink_to("loopy.yaml")
    with pytest.raises(ConfigError) as caught:
        load_suites(find_suites([Path("mix")]).suites)
    message = str(caught.value)
    assert message.startswith("2 suites are invalid:")
    assert "mix/bad.yaml" in message
    assert "mix/loopy.yaml: cannot read the file" in message


def test_an_unreadable_path_is_reported_among_the_others(folder: Path) -> None:
    _write(folder / "good.yaml", GOOD)
    _write(folder / "unread.yaml", GOOD).chmod(0)
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "validate", "unread.yaml", "good.yaml"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=as_a_user(),
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "✗ unread.yaml: cannot read the file" in output
    assert "✓ good.yaml" in output
    assert "1 file is invalid" in output


def test_an_empty_list_of_cases_is_located_at_its_key(folder: Path) -> None:
    suite = _write(folder / "s.yaml", HEAD + "test_cases: []\n")
    message = _error(suite)
    assert f"{suite}:3:1: test_cases: `test_cases` holds no case" in message
