"""A `files:` glob and a `cases_from:` glob do not follow links to folders (two links to
itself would make `**` list 2**40 paths)."""

from __future__ import annotations

import os
from pathlib import Path

from promptum.suites import load_suite
from tests.support.cli import write


def links_to_itself(folder: Path) -> None:
    """`folder` with files, a hidden one, and two links to itself: `glob.glob`'s `**`
    follows both at every level, 2**40 paths before the system's link limit stops it."""
    (folder / "sub").mkdir(parents=True)
    (folder / "a.md").write_text("A", encoding="utf-8")
    (folder / "sub" / "b.md").write_text("B", encoding="utf-8")
    (folder / ".hidden.md").write_text("H", encoding="utf-8")
    os.symlink(".", folder / "l1")
    os.symlink(".", folder / "l2")


def test_a_files_glob_does_not_follow_links_to_folders(tmp_path: Path) -> None:
    links_to_itself(tmp_path / "docs")
    suite = write(
        tmp_path / "suite.yaml",
        """\
        models: [openai/gpt-4o-mini]
        test_cases:
          - id: s
            vars: {doc: {files: "docs/**/*.md"}}
            query: "{{ doc }}"
        """,
    )
    cases = load_suite(suite).cases
    assert [(c.id, c.vars["doc"]) for c in cases] == [("s-a", "A"), ("s-sub-b", "B")]


def test_a_cases_from_glob_does_not_follow_links_to_folders(tmp_path: Path) -> None:
    links_to_itself(tmp_path / "cases")
    (tmp_path / "cases" / "a.md").rename(tmp_path / "cases" / "one.yaml")
    (tmp_path / "cases" / "one.yaml").write_text("- {id: one, query: hi}\n", encoding="utf-8")
    suite = write(
        tmp_path / "suite.yaml", "models: [openai/gpt-4o-mini]\ncases_from: cases/**/*.yaml\n"
    )
    assert [c.id for c in load_suite(suite).cases] == ["one"]
