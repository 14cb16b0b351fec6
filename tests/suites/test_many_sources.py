"""A suite with more CSV and JSONL sources than the process may have open files."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from promptum.errors import ConfigError
from promptum.suites import load_suite
from tests.support.cli import run_promptum

OPEN_FILES = 64
"""The descriptor limit of the process under test: far below the number of sources."""

SOURCES = 100

APP = """\
def answer(query: str) -> str:
    return "hello " + query
"""


def _write_suite(folder: Path) -> Path:
    """A suite reading two cases from each of SOURCES data files, half CSV and half JSONL."""
    names = []
    for n in range(SOURCES):
        if n % 2:
            name = f"rows{n}.jsonl"
            rows = "".join(json.dumps({"id": f"s{n}-{i}", "q": f"{n}.{i}"}) + "\n" for i in (1, 2))
        else:
            name = f"rows{n}.csv"
            rows = f"id,q\ns{n}-1,{n}.1\ns{n}-2,{n}.2\n"
        (folder / name).write_text(rows, encoding="utf-8")
        names.append(name)
    (folder / "app.py").write_text(APP, encoding="utf-8")
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: many\ntarget: app.py:answer\nprompt: '{{ q }}'\n"
        "defaults: {checks: [{type: contains, value: hello}]}\n"
        f"cases_from: {json.dumps(names)}\n",
        encoding="utf-8",
    )
    return suite


def _case_id(index: int) -> str:
    """The id of the case at `index` of the suite: two from each source, in order."""
    return f"s{index // 2}-{index % 2 + 1}"


def _limit_open_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))


def _promptum(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The promptum command in a process that may open only OPEN_FILES files at once."""
    path = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return run_promptum(*args, cwd=folder, timeout=300, preexec_fn=_limit_open_files, env=path)


def test_more_sources_than_open_files_validate_and_run(tmp_path: Path) -> None:
    _write_suite(tmp_path)
    validated = _promptum(tmp_path, "validate", "suite.yaml")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert f"{2 * SOURCES} cases" in validated.stdout

    ran = _promptum(tmp_path, "run", "suite.yaml", "--no-store", "--no-cache", "-o", "r.jsonl")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    results = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(results) == 2 * SOURCES
    assert {result["case_id"] for result in results} == {
        f"s{n}-{i}" for n in range(SOURCES) for i in (1, 2)
    }


def test_rows_are_read_again_from_any_source_in_any_order(tmp_path: Path) -> None:
    cases = load_suite(_write_suite(tmp_path)).cases
    order = [7, 150, 3, 199, 0, 150, 42]
    assert [cases[i].id for i in order] == [_case_id(i) for i in order]
    assert [case.id for case in cases][::57] == [_case_id(i) for i in range(0, 200, 57)]


@pytest.mark.parametrize("change", ["replaced", "removed"])
def test_a_data_file_replaced_or_removed_after_loading_is_refused(
    tmp_path: Path, change: str
) -> None:
    cases = load_suite(_write_suite(tmp_path)).cases
    source = tmp_path / "rows0.csv"
    if change == "replaced":  # the same size and time: only the file itself differs
        stamp = source.stat()
        copy = tmp_path / "copy.csv"
        copy.write_bytes(source.read_bytes())
        os.utime(copy, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        copy.replace(source)
    else:
        source.unlink()
    assert cases[2].id == "s1-1"  # the other sources read on
    with pytest.raises(
        ConfigError, match=r"rows0\.csv: the file changed after the suite was loaded"
    ):
        cases[0]
