"""A folder of suites: YAML that names no suite key is skipped with a note, a broken suite or an
unreadable path is reported among the others, and run refuses naming every broken one."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import find_suites, load_suites
from tests.support.cli import invoke, run_promptum, write
from tests.support.privileges import as_a_user
from tests.support.suites import TARGET_SUITE as HEAD
from tests.support.suites import load_error

GOOD = HEAD + "test_cases: [{id: a, query: hi}]\n"


def test_a_folder_skips_yaml_that_names_no_suite_key_with_a_note(folder: Path) -> None:
    write(folder / "deploy" / "multi.yaml", "apiVersion: v1\nkind: A\n---\nkind: B\n")
    write(folder / "chart" / "cm.yaml", "metadata:\n  name: {{ .Values.name }}\n")
    write(folder / "chart" / "broken.yaml", "[1, 2\n")
    write(folder / "s" / "suite.yaml", GOOD)
    write(folder / "s" / "app.py", (folder / "app.py").read_text())
    found = find_suites([Path()])
    assert found.suites == [Path("s/suite.yaml")]
    reasons = dict(found.skipped)
    assert "several YAML documents" in reasons[Path("deploy/multi.yaml")]
    assert "does not load as YAML" in reasons[Path("chart/cm.yaml")]
    assert "does not load as YAML" in reasons[Path("chart/broken.yaml")]
    result = invoke("validate", ".")
    assert result.exit_code == 0, result.output
    assert "deploy/multi.yaml: skipped, not a suite" in result.output


def test_a_broken_file_that_names_a_suite_key_is_an_error_not_skipped(folder: Path) -> None:
    write(folder / "multi.yaml", GOOD + "---\nother: 1\n")
    assert find_suites([Path()]).suites == [Path("multi.yaml")]
    assert "but found another document" in load_error(folder / "multi.yaml")


def test_validate_of_a_folder_reports_every_invalid_file_and_their_count(folder: Path) -> None:
    write(folder / "mix" / "bad.yaml", "name: bad\ntest_cases: [{id: a, querry: hi}]\n")
    write(folder / "mix" / "good.yaml", GOOD)
    write(folder / "mix" / "app.py", (folder / "app.py").read_text())
    (folder / "mix" / "loopy.yaml").symlink_to("loopy.yaml")
    result = invoke("validate", "mix")
    assert result.exit_code == 2
    assert "✓ mix/good.yaml" in result.output
    assert "mix/bad.yaml:2:22: test_cases[0].querry" in result.output
    assert "✗ mix/loopy.yaml: cannot read the file" in result.output
    assert "2 files are invalid" in result.output


def test_run_refuses_a_folder_naming_every_broken_suite(folder: Path) -> None:
    write(folder / "mix" / "bad.yaml", "name: bad\ntest_cases: [{id: a, querry: hi}]\n")
    (folder / "mix" / "loopy.yaml").symlink_to("loopy.yaml")
    with pytest.raises(ConfigError) as caught:
        load_suites(find_suites([Path("mix")]).suites)
    message = str(caught.value)
    assert message.startswith("2 suites are invalid:")
    assert "mix/bad.yaml" in message
    assert "mix/loopy.yaml: cannot read the file" in message


def test_an_unreadable_path_is_reported_among_the_others(folder: Path) -> None:
    write(folder / "good.yaml", GOOD)
    write(folder / "unread.yaml", GOOD).chmod(0)
    done = run_promptum("validate", "unread.yaml", "good.yaml", cwd=folder, preexec_fn=as_a_user())
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "✗ unread.yaml: cannot read the file" in output
    assert "✓ good.yaml" in output
    assert "1 file is invalid" in output
