"""Save as case on files of every shape: the new case appended, every other byte kept."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from promptum.viewer._save_case import SourceFile, append_case, locate
from promptum.viewer._security import RefusedError


def _append(path: Path, line: int, **change: str) -> None:
    given = {"case_id": "new-case", "kind": "contains", "value": "Paris", **change}
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    append_case(SourceFile(path, line), sha, **given)


def test_a_case_file_without_a_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    before = (
        "# cases shared by two suites\n- id: one   # first\n  query: 'Hi'\n- id: two\n  query: Yo"
    )
    path.write_text(before)
    _append(path, 4)
    after = path.read_text()
    assert (
        after
        == before
        + "\n- id: new-case\n  query: Yo\n  checks:\n    - type: contains\n      value: Paris\n"
    )
    assert [case["id"] for case in yaml.safe_load(after)] == ["one", "two", "new-case"]


def test_test_cases_last_in_the_suite_with_other_indentation(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    before = (
        "models: [local/smollm2]\n"
        "test_cases:\n"
        "- id: one\n"
        "  query: >-\n"
        "    folded\n"
        "    text\n"
        "  checks: [{type: max_length, value: 50}]   # short\n"
        "\n"
        "# a closing comment\n"
    )
    path.write_text(before)
    _append(path, 3, kind="not_contains", value="Lyon: no")
    after = path.read_text()
    assert after.startswith(before)
    cases = yaml.safe_load(after)["test_cases"]
    assert cases[1] == {
        "id": "new-case",
        "query": "folded text",
        "checks": [
            {"type": "max_length", "value": 50},
            {"type": "not_contains", "value": "Lyon: no"},
        ],
    }


def test_a_flow_list_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("test_cases: [{id: one, query: hi}]\n")
    with pytest.raises(RefusedError, match=r"\[flow\] list"):
        _append(path, 1)
    assert path.read_text() == "test_cases: [{id: one, query: hi}]\n"


@pytest.mark.parametrize("name", ["one.toml", "rows.csv", "rows.jsonl"])
def test_other_formats_are_refused_with_a_reason(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("x")
    with pytest.raises(RefusedError, match="YAML suites and case files only") as refused:
        locate(f"{tmp_path / name}:1", tmp_path)
    assert refused.value.status == 422


@pytest.mark.parametrize("source", ["../elsewhere.yaml:1", "/etc/passwd.yaml:1"])
def test_a_file_outside_the_project_is_refused(tmp_path: Path, source: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    with pytest.raises(RefusedError, match="outside") as refused:
        locate(source, root)
    assert refused.value.status == 403


def test_a_link_leading_out_of_the_project_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "real.yaml").write_text("test_cases:\n  - id: a\n    query: q\n")
    (root / "suite.yaml").symlink_to(tmp_path / "real.yaml")
    with pytest.raises(RefusedError, match="outside"):
        locate("suite.yaml:2", root)
