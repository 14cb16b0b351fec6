"""Suites across a repository: one `suite.yaml` per team folder, named by its path there.

Teams keep one config per folder (`team-a/suite.yaml`, `team-b/suite.yaml`): a suite
without `name:` is named by its path relative to the folder run (`team-a/suite`), so such
suites run together; only two equal `name:`s written out are an error. A suite given as a
file keeps its file's stem, and a folder given is the root of its suites' names.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptum.store import RunStore
from promptum.suites import find_suites, load_suite, load_suites, suite_name
from tests.support.cli import run_promptum, run_pytest, write
from tests.support.fault_server import FaultServer, Reply, fault_server

SUITE = """\
models: [fault/m]
test_cases:
  - id: one
    query: Say hello
    checks: [{type: contains, value: Hello}]
"""


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """Two teams' `suite.yaml`, a folder of TOML cases, and a suite at the top."""
    write(tmp_path / "team-a" / "suite.yaml", SUITE)
    write(tmp_path / "team-b" / "suite.yaml", SUITE)
    toml = 'query = "Say hello"\nmodels = ["fault/m"]\n'
    toml += 'checks = [{type = "contains", value = "Hello"}]\n'
    write(tmp_path / "team-c" / "cases" / "one.toml", toml)
    write(tmp_path / "top.yaml", SUITE)
    return tmp_path


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def promptum(cwd: Path, server: FaultServer, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in its own process: what a user sees, a traceback included."""
    env = {**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url}
    env.pop("PROMPTUM_DB", None)
    return run_promptum(*args, cwd=cwd, env=env)


def keys(report: Path) -> list[str]:
    """The `suite/case` ids of the results of a JSONL report or journal."""
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    return sorted(f"{line['suite']}/{line['case_id']}" for line in lines if "case_id" in line)


def test_a_folder_run_names_suites_by_their_path_in_it(
    repository: Path, server: FaultServer
) -> None:
    done = promptum(repository, server, "run", ".", "-c", "1", "-o", "r.jsonl")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Traceback" not in output
    expected = ["team-a/suite/one", "team-b/suite/one", "team-c/cases/one", "top/one"]
    assert keys(repository / "r.jsonl") == expected  # reports
    for key in expected:
        assert f"PASS {key}" in output  # the terminal
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repository)
        stored = RunStore().load("latest")
    assert sorted(result.key for result in stored.results) == expected  # the run store
    assert sorted({result.suite for result in stored.results}) == [
        "team-a/suite",
        "team-b/suite",
        "team-c/cases",
        "top",
    ]

    checked = promptum(repository, server, "validate", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # -k matches the new ids, slashes and all.
    selected = promptum(repository, server, "run", ".", "-k", "team-b/*", "--no-store")
    assert selected.returncode == 0, selected.stdout + selected.stderr
    assert "PASS team-b/suite/one" in selected.stdout
    assert "team-a/suite/one" not in selected.stdout


@pytest.mark.slow
def test_resume_finds_the_results_of_suites_named_by_their_path(
    repository: Path, server: FaultServer
) -> None:
    (repository / "top.yaml").unlink()
    (repository / "team-c" / "cases" / "one.toml").unlink()
    (repository / "team-c" / "cases").rmdir()
    for name in ("team-a", "team-b"):
        two = "  - {id: two, query: Say hi, checks: [{type: contains, value: Hello}]}\n"
        write(repository / name / "suite.yaml", SUITE + two)
    server.queue(Reply.ok("Hello"), Reply.ok("Hello"))
    server.default = Reply.hang(60)  # the third call hangs: the run is interrupted there
    env = {**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url}
    command = [sys.executable, "-m", "promptum", "run", ".", "-c", "1", "--no-store", "--no-cache"]
    process = subprocess.Popen(
        command, cwd=repository, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 60
    while len(server.requests) < 3:
        assert process.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    first = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 130, first
    journal = next((repository / ".promptum" / "runs").glob("*.jsonl"))
    finished = keys(journal)  # the results kept, under their ids
    assert len(finished) == 2
    assert set(finished) <= {f"team-{t}/suite/{c}" for t in "ab" for c in ("one", "two")}

    server.default = Reply.ok("Hello")
    server.requests.clear()
    done = promptum(
        repository,
        server,
        "run",
        ".",
        "-c",
        "1",
        "--no-store",
        "--no-cache",
        "--resume",
        "-o",
        "r.jsonl",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Resuming run" in done.stdout
    assert len(server.requests) == 2  # the two finished results were found under their ids
    assert keys(repository / "r.jsonl") == [
        "team-a/suite/one",
        "team-a/suite/two",
        "team-b/suite/one",
        "team-b/suite/two",
    ]


def test_a_file_keeps_its_stem_and_a_folder_given_roots_the_names(
    repository: Path, server: FaultServer
) -> None:
    one = promptum(repository, server, "run", "team-a/suite.yaml", "--no-store", "-o", "a.jsonl")
    assert one.returncode == 0, one.stdout + one.stderr
    assert keys(repository / "a.jsonl") == ["suite/one"]  # as before: the file's stem
    folder = promptum(repository, server, "run", "team-c", "--no-store", "-o", "c.jsonl")
    assert folder.returncode == 0, folder.stdout + folder.stderr
    assert keys(repository / "c.jsonl") == ["cases/one"]  # relative to the folder given


def test_only_two_equal_names_written_out_are_an_error(
    repository: Path, server: FaultServer
) -> None:
    write(repository / "team-a" / "suite.yaml", "name: shared\n" + SUITE)
    write(repository / "team-b" / "suite.yaml", "name: shared\n" + SUITE)
    for command in ("run", "validate"):
        done = promptum(repository, server, command, ".")
        output = done.stdout + done.stderr
        assert done.returncode == 2, output
        assert "Traceback" not in output
        assert (
            f"{Path('team-b/suite.yaml')}: suite name 'shared' is also the name of "
            f"{Path('team-a/suite.yaml')}; case ids are namespaced by suite name, so give one "
            "of them its own `name:`"
        ) in output
    assert server.requests == []


def test_discovery_names_what_it_finds(repository: Path) -> None:
    found = find_suites([repository])
    names = {path.relative_to(repository).as_posix(): name for path, name in found.names.items()}
    assert names == {
        "team-a/suite.yaml": "team-a/suite",
        "team-b/suite.yaml": "team-b/suite",
        "team-c/cases": "team-c/cases",
        "top.yaml": "top",
    }
    suites = load_suites(found.suites, found.names)
    assert [suite.name for suite in suites] == [
        "team-a/suite",
        "team-b/suite",
        "top",
        "team-c/cases",
    ]
    assert [case.key for suite in suites for case in suite.cases] == [
        "team-a/suite/one",
        "team-b/suite/one",
        "top/one",
        "team-c/cases/one",
    ]
    # A name of its own wins over the path; a suite loaded by itself keeps its stem.
    write(repository / "team-a" / "suite.yaml", "name: alpha\n" + SUITE)
    assert load_suite(repository / "team-a" / "suite.yaml", name="team-a/suite").name == "alpha"
    assert load_suite(repository / "team-b" / "suite.yaml").name == "suite"
    assert suite_name(repository, repository) is None
    assert suite_name(repository / "x" / "v1.2.yml", repository) == "x/v1.2"


def test_the_pytest_plugin_names_a_globs_suites_by_their_path_below_it(
    repository: Path, server: FaultServer
) -> None:
    (repository / "prompts").mkdir()
    for team in ("team-a", "team-b"):
        (repository / team).rename(repository / "prompts" / team)
    write(repository / "pytest.ini", "[pytest]\npromptum_suites = prompts/**/suite.yaml\n")
    done = run_pytest(
        "-v",
        "--promptum-no-store",
        cwd=repository,
        env={**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "prompts/team-a/suite.yaml::team-a/suite/one[fault/m] PASSED" in done.stdout
    assert "prompts/team-b/suite.yaml::team-b/suite/one[fault/m] PASSED" in done.stdout


def test_each_team_folder_has_its_own_target_of_the_same_file_name(
    tmp_path: Path, server: FaultServer
) -> None:
    for team in ("team-a", "team-b"):
        write(tmp_path / team / "app.py", f"def answer(query):\n    return 'Hello from {team}'\n")
        write(
            tmp_path / team / "suite.yaml",
            f"""\
            target: app.py:answer
            test_cases:
              - id: one
                query: Say hello
                checks: [{{type: contains, value: {team}}}]
            """,
        )
    done = promptum(tmp_path, server, "run", ".", "-o", "r.jsonl", "--no-store")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    models = sorted(line["model"] for line in lines if "case_id" in line)
    assert models == ["target:team-a/app.py:answer", "target:team-b/app.py:answer"]
    # Given alone, a suite's target keeps the name it is written with.
    alone = load_suite(tmp_path / "team-a" / "suite.yaml")
    assert [case.models for case in alone.cases] == [("target:app.py:answer",)]
