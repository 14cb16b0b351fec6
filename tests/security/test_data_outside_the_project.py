"""`cases_from` reads the project's files only: not the machine's, directly or by a link."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main

SECRET_ROW = "id,query\nleak,the-secret-value-in-a-private-file\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (the working directory) beside a private folder outside it."""
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secrets.csv").write_text(SECRET_ROW, encoding="utf-8")
    root = tmp_path / "project"
    (root / "prompts").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "data" / "rows.csv").write_text("id,query\nok,hello\n", encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def validate(suite: Path, source: str) -> tuple[int, str]:
    suite.write_text(f"prompt: '{{{{ query }}}}'\ncases_from: ['{source}']\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(suite)])
    return result.exit_code, result.output


@pytest.mark.parametrize("source", ["../../private/secrets.csv", "{outside}"])
def test_a_file_outside_the_project_is_refused(project: Path, source: str) -> None:
    source = source.format(outside=project.parent / "private" / "secrets.csv")
    code, output = validate(project / "prompts" / "suite.yaml", source)
    assert code == 2
    assert "outside the suite's folder and the working directory" in output
    assert "cases_from[0]" in output
    assert "the-secret-value" not in output


def test_a_link_out_of_the_project_is_refused(project: Path) -> None:
    (project / "data" / "link.csv").symlink_to(project.parent / "private" / "secrets.csv")
    code, output = validate(project / "prompts" / "suite.yaml", "../data/link.csv")
    assert code == 2
    assert "outside the suite's folder" in output
    assert "the-secret-value" not in output


def test_the_projects_own_data_is_read(project: Path) -> None:
    code, output = validate(project / "prompts" / "suite.yaml", "../data/rows.csv")
    assert code == 0, output
    assert "1 case," in output


def test_a_link_in_a_case_folder_cannot_lead_out(project: Path) -> None:
    (project.parent / "private" / "creds.toml").write_text('query = "the-secret-value"\n')
    cases = project / "prompts" / "cases"
    cases.mkdir()
    (cases / "ok.toml").write_text('query = "hello"\n')
    (cases / "creds.toml").symlink_to(project.parent / "private" / "creds.toml")
    code, output = validate(project / "prompts" / "suite.yaml", "cases")
    assert code == 2
    assert "outside its folder" in output
    assert "the-secret-value" not in output
    result = CliRunner().invoke(main, ["validate", str(cases)])  # the folder as a suite
    assert result.exit_code == 2
    assert "outside its folder" in result.output
