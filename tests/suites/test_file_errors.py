"""Every problem reading a file is a located error, exit 2, never a traceback.

Symbolic links to themselves or to nothing, permissions, files that vanish while a suite
loads, a byte-order mark in a TOML case file, empty data files, and size limits that the
machine (never the suite) may raise.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from promptum.suites import _file_reading, _yaml_reader, find_suites, load_suite
from tests.support.cli import run_promptum, run_pytest, write
from tests.support.privileges import as_a_user
from tests.support.suites import load_error

LOOP = "cannot read the file: it is a symbolic link that leads back to itself; point the link "
DANGLING = "cannot read the file: it is a symbolic link to a file that does not exist"
DENIED = "permission denied; make it readable by the user that runs promptum"

SUITE = "test_cases:\n  - {id: one, query: Say hello}\n"


def link(path: Path, target: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


def promptum(cwd: Path, *args: str, as_user: bool = False) -> str:
    """`promptum ARGS` in its own process, which must exit 2 without a traceback."""
    preexec = as_a_user() if as_user else None
    done = run_promptum(*args, cwd=cwd, preexec_fn=preexec)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    return output


def test_a_suite_linked_to_itself(tmp_path: Path) -> None:
    link(tmp_path / "loop.yaml", "loop.yaml")
    for command in ("run", "validate"):
        output = promptum(tmp_path, command, "loop.yaml")
        assert f"loop.yaml: {LOOP}at the real file, or put the file in its place" in output
    # Found by searching a folder: a suite, maybe, that cannot be read (not silently passed).
    write(tmp_path / "ok.yaml", SUITE)
    assert f"loop.yaml: {LOOP}" in promptum(tmp_path, "validate", ".")
    (tmp_path / "loop.yaml").unlink()
    link(tmp_path / "gone.yaml", "nowhere.yaml")
    assert f"gone.yaml: {DANGLING}" in promptum(tmp_path, "run", ".")


def test_a_case_file_linked_to_itself_is_reported_with_the_folders_other_problems(
    tmp_path: Path,
) -> None:
    write(tmp_path / "cases" / "a.toml", 'query = "hi"\n')
    write(tmp_path / "cases" / "c.toml", "query = \n")
    link(tmp_path / "cases" / "b.toml", "b.toml")
    for command in ("run", "validate"):
        output = promptum(tmp_path, command, "cases")
        assert f"{Path('cases/b.toml')}: {LOOP}" in output
        assert f"{Path('cases/c.toml')}:1:" in output  # its broken neighbour is reported too
    # In a searched folder as well.
    write(tmp_path / "other" / "suite.yaml", SUITE)
    assert f"{Path('cases/b.toml')}: {LOOP}" in promptum(tmp_path, "validate", ".")


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("rows.csv", "rows.csv", LOOP),
        ("rows.jsonl", "rows.jsonl", LOOP),
        ("cases", "cases", LOOP),
        ("rows.csv", "missing.csv", DANGLING),
    ],
)
def test_a_data_source_that_is_a_broken_link_is_located_at_its_cases_from_line(
    tmp_path: Path, source: str, target: str, expected: str
) -> None:
    write(tmp_path / "suite.yaml", f"prompt: hi\nmodels: [fault/m]\ncases_from: [{source}]\n")
    link(tmp_path / source, target)
    for command in ("run", "validate"):
        output = promptum(tmp_path, command, "suite.yaml")
        assert f"suite.yaml:3:14: cases_from[0]: {source}: {expected}" in output
    assert f"suite.yaml:3:14: cases_from[0]: {source}: {expected}" in promptum(
        tmp_path, "validate", "."
    )


def test_files_the_user_may_not_read(tmp_path: Path) -> None:
    # As root, the child drops the capabilities that bypass permissions: EACCES is real.
    secret = write(tmp_path / "suites" / "secret.yaml", SUITE)
    secret.chmod(0)
    output = promptum(tmp_path, "run", "suites", as_user=True)  # found in a folder searched
    assert f"{Path('suites/secret.yaml')}: cannot read the file: {DENIED}" in output
    promptum(tmp_path, "validate", "suites/secret.yaml", as_user=True)  # click refuses it
    write(tmp_path / "data" / "suite.yaml", "prompt: hi\ncases_from: rows.csv\n")
    write(tmp_path / "data" / "rows.csv", "id\na\n").chmod(0)
    output = promptum(tmp_path / "data", "run", "suite.yaml", as_user=True)
    assert f"suite.yaml:2:1: cases_from[0]: rows.csv: cannot read the file: {DENIED}" in output
    write(tmp_path / "cases" / "a.toml", 'query = "hi"\n').chmod(0)
    output = promptum(tmp_path, "validate", "cases", as_user=True)
    assert f"{Path('cases/a.toml')}: cannot read the file: {DENIED}" in output


def test_a_folder_that_cannot_be_listed(tmp_path: Path) -> None:
    # A folder below the one searched (a database's volume, say) is skipped with the reason.
    write(tmp_path / "prompts" / "suite.yaml", SUITE)
    (tmp_path / "prompts" / "pgdata").mkdir()
    (tmp_path / "prompts" / "pgdata").chmod(0)
    denied = run_promptum("validate", "prompts", cwd=tmp_path, preexec_fn=as_a_user())
    assert denied.returncode == 0, denied.stdout + denied.stderr
    assert "Traceback" not in denied.stderr
    assert f"- {Path('prompts/pgdata')}: skipped, not searched: cannot read the folder: " in (
        denied.stdout
    )
    # The folder given itself is an error (click checks an argument before promptum does).
    run = promptum(tmp_path, "run", "prompts/pgdata", as_user=True)
    assert "prompts/pgdata: cannot read the folder: permission denied" in run


APP_REMOVING = """\
import os

os.remove({name!r})  # run when the suite imports its target, before its data is read


def answer(query: str) -> str:
    return "hello"
"""


def test_a_data_file_that_vanishes_while_its_suite_loads(tmp_path: Path) -> None:
    write(tmp_path / "app.py", APP_REMOVING.format(name="rows.csv"))
    write(
        tmp_path / "suite.yaml",
        "target: app.py:answer\nprompt: '{{ word }}'\ncases_from: rows.csv\n",
    )
    write(tmp_path / "rows.csv", "id,word\na,hi\n")
    output = promptum(tmp_path, "run", "suite.yaml")
    assert "suite.yaml:3:1: cases_from[0]: rows.csv: no such file or folder" in output


def test_a_suite_that_vanishes_while_another_loads(tmp_path: Path) -> None:
    write(tmp_path / "app.py", APP_REMOVING.format(name="b.yaml"))
    write(tmp_path / "a.yaml", "target: app.py:answer\n" + SUITE)
    write(tmp_path / "b.yaml", SUITE)
    output = promptum(tmp_path, "run", ".")
    assert "b.yaml: no such file or folder" in output


def test_a_byte_order_mark_is_accepted_in_toml_as_in_yaml_and_csv(tmp_path: Path) -> None:
    bom = "\ufeff"
    write(tmp_path / "cases" / "a.toml", f'{bom}query = "hi"\nchecks = [{{type = "contains"}}]\n')
    message = load_error(tmp_path / "cases")
    # Located as without the mark: the mark is not a column.
    assert f"{tmp_path / 'cases' / 'a.toml'}:2:1: checks[0]" in message
    write(tmp_path / "cases" / "a.toml", f'{bom}query = "hi"\n')
    write(tmp_path / "suite.yaml", f"{bom}cases_from: [cases, rows.csv, rows.jsonl]\n")
    write(tmp_path / "rows.csv", f"{bom}id,query\nb,hello\n")
    write(tmp_path / "rows.jsonl", f'{bom}{{"id": "c", "query": "hey"}}\n')
    suite = load_suite(tmp_path / "suite.yaml")
    assert [(case.id, case.messages[-1].content) for case in suite.cases] == [
        ("a", "hi"),
        ("b", "hello"),
        ("c", "hey"),
    ]
    assert find_suites([tmp_path / "cases"]).suites == [tmp_path / "cases"]  # a case folder


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ("", "rows.csv: the CSV file is empty: no header, no rows; add a header line naming"),
        (
            "id,query\n",
            "rows.csv: the CSV file has no rows below its header (id, query); add one row per "
            "case below the header, or remove it from `cases_from`",
        ),
    ],
)
def test_an_empty_csv_is_named_at_its_cases_from_line(
    tmp_path: Path, rows: str, expected: str
) -> None:
    write(tmp_path / "rows.csv", rows)
    write(tmp_path / "suite.yaml", "models: [fault/m]\ncases_from: rows.csv\n")
    for command in ("run", "validate"):
        output = promptum(tmp_path, command, "suite.yaml")
        assert f"suite.yaml:2:1: cases_from[0]: {expected}" in output
        assert "the suite has no cases" not in output
    # Beside other cases too: a source that adds nothing is a mistake, not silently inert.
    write(tmp_path / "more.csv", "id,query\na,hi\n")
    write(tmp_path / "suite.yaml", "cases_from:\n  - more.csv\n  - rows.csv\n")
    message = load_error(tmp_path / "suite.yaml")
    assert message.startswith("1 problem found:\n")
    assert f"{tmp_path / 'suite.yaml'}:3:5: cases_from[1]: {tmp_path}{os.sep}{expected}" in message


def test_an_empty_jsonl_is_named_too(tmp_path: Path) -> None:
    write(tmp_path / "rows.jsonl", "\n\n")
    write(tmp_path / "suite.yaml", "cases_from: rows.jsonl\n")
    assert f"cases_from[0]: {tmp_path / 'rows.jsonl'}: the JSONL file has no cases: every" in (
        load_error(tmp_path / "suite.yaml")
    )


def test_the_machine_raises_the_size_limit_of_suites_and_case_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_file_reading, "MAX_DOCUMENT_BYTES", 60)
    cases = "".join(f"  - {{id: c{n}, query: hi}}\n" for n in range(4))
    suite = write(tmp_path / "suite.yaml", "test_cases:\n" + cases)
    case = write(tmp_path / "cases" / "a.toml", 'query = "' + "x" * 80 + '"\n')
    for path, where in ((suite, suite), (tmp_path / "cases", case)):
        message = load_error(path)
        assert f"{where}: the file has " in message
        assert "over the limit of 60; move the cases to a CSV or JSONL file" in message
        assert "or set PROMPTUM_MAX_SUITE_BYTES on the machine that runs it" in message
    monkeypatch.setenv("PROMPTUM_MAX_SUITE_BYTES", "1000")
    assert len(load_suite(suite).cases) == 4
    assert len(load_suite(tmp_path / "cases").cases) == 1
    monkeypatch.setenv("PROMPTUM_MAX_SUITE_BYTES", "a lot")
    assert "PROMPTUM_MAX_SUITE_BYTES must be a positive number of bytes, got 'a lot'" in (
        load_error(suite)
    )


ALIASES = """\
vars: {base: &base [a, b, c, d, e, f, g, h, i, j]}
test_cases:
  - id: a
    query: hi
    vars: {one: *base, two: *base, three: *base}
"""


def test_the_machine_raises_the_yaml_alias_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "suite.yaml", ALIASES)
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_VALUES", 20)
    message = load_error(path)
    assert "refused as an alias bomb" in message
    assert "set PROMPTUM_MAX_ALIAS_VALUES on the machine that runs it" in message
    monkeypatch.setenv("PROMPTUM_MAX_ALIAS_VALUES", "100")
    assert len(load_suite(path).cases) == 1
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_CHARACTERS", 10)
    assert "set PROMPTUM_MAX_ALIAS_CHARACTERS on the machine" in load_error(path)
    monkeypatch.setenv("PROMPTUM_MAX_ALIAS_CHARACTERS", "1000")
    assert len(load_suite(path).cases) == 1


def test_the_pytest_plugin_refuses_a_suite_linked_to_itself(tmp_path: Path) -> None:
    write(tmp_path / "prompts" / "ok.yaml", SUITE)
    link(tmp_path / "prompts" / "loop.yaml", "loop.yaml")
    write(tmp_path / "pytest.ini", "[pytest]\npromptum_suites = prompts/*.yaml\n")
    done = run_pytest("--collect-only", "-q", cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, output
    assert "INTERNALERROR" not in output
    assert "Traceback" not in output
    assert f"promptum_suites 'prompts/*.yaml' matches {tmp_path / 'prompts' / 'loop.yaml'}, " in (
        output
    )
