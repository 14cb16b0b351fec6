"""Data by reference: vars read from files, a case per file of a glob, YAML case files.

`vars: {doc: {file: docs/a.md}}` is the file's text, `{files: "docs/*.md"}` makes one case
per file matched, and `cases_from` reads YAML case files (lists of cases) and globs; all of
it inside the suite's project, every mistake located.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptum.cli import main
from promptum.errors import ConfigError
from promptum.reporting import load_run
from promptum.suites import find_suites, load_suite
from tests.support.cli import write
from tests.support.fault_server import FaultServer, Reply, fault_server
from tests.support.interrupts import interrupt_once, wait_for_requests

APP = "def answer(query: str) -> str:\n    return 'echo: ' + query\n"


def problems(path: Path) -> str:
    """The load error of the suite at `path`."""
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return str(caught.value)


def prompts(path: Path) -> dict[str, str]:
    """Each case's id and its last message, as loaded."""
    return {case.id: case.messages[-1].content for case in load_suite(path).cases}


def one_case_prompts(project: Path, query: str, variables: str) -> dict[str, str]:
    """The prompts of a suite in `project` whose one case, `one`, asks `query` with the case
    vars `variables` (YAML text)."""
    suite = write(
        project / "suite.yaml",
        "target: app.py:answer\ntest_cases:\n"
        f'  - id: one\n    query: "{query}"\n    vars: {variables}\n',
    )
    return prompts(suite)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project (the working directory) with documents, beside a private folder outside it."""
    write(tmp_path / "private" / "secret.md", "the-secret-value\n")
    root = tmp_path / "project"
    write(root / "docs" / "a.md", "Alpha {{ not_a_var }}\n")
    write(root / "docs" / "b.md", "Beta\n")
    write(root / "docs" / "sub" / "c.md", "Gamma\n")
    write(root / "policy.md", "Be brief.\n")
    write(root / "app.py", APP)
    monkeypatch.chdir(root)
    return root


# --- file: and files: ---------------------------------------------------------------------


def test_a_file_var_is_the_files_text_in_suite_and_case_vars(project: Path) -> None:
    suite = write(
        project / "suite.yaml",
        """\
        target: app.py:answer
        vars: {policy: {file: policy.md}}
        test_cases:
          - id: one
            query: "{{ policy }}|{{ doc }}"
            vars: {doc: {file: docs/a.md}}
          - id: two
            query: "{{ policy }}|{{ doc }}"
            vars: {doc: {file: ./docs/b.md}}
        """,
    )
    loaded = load_suite(suite)
    # The text as it is: a template in the file stays text, never rendered.
    assert prompts(suite) == {
        "one": "Be brief.\n|Alpha {{ not_a_var }}\n",
        "two": "Be brief.\n|Beta\n",
    }
    # Each file is read once and shared; what was read is watched with the suite.
    first, second = loaded.cases
    assert first.vars["policy"] is second.vars["policy"]
    assert set(loaded.inputs) == {
        project / "policy.md",
        project / "docs/a.md",
        project / "docs/b.md",
    }


def test_a_json_file_is_text_that_a_template_may_parse(project: Path) -> None:
    write(project / "docs" / "order.json", '{"item": "lamp", "count": 2}\n')
    query = "{{ (order | from_json).count }} x {{ (order | from_json).item }}"
    assert one_case_prompts(project, query, "{order: {file: docs/order.json}}") == {
        "one": "2 x lamp"
    }


def test_a_mapping_with_other_keys_is_an_ordinary_value(project: Path) -> None:
    query = "{{ doc.file }} line {{ doc.line }}"
    assert one_case_prompts(project, query, "{doc: {file: docs/a.md, line: 3}}") == {
        "one": "docs/a.md line 3"
    }


def test_a_glob_makes_one_case_per_file_sorted_named_by_its_stem(project: Path) -> None:
    suite = write(
        project / "suite.yaml",
        """\
        target: app.py:answer
        test_cases:
          - id: summarise
            query: "Summarise: {{ doc }}"
            vars: {doc: {files: "docs/*.md"}, style: short}
            tags: [docs]
            checks: [{type: contains, value: "echo"}]
          - id: deep
            query: "{{ doc }}"
            vars: {doc: {files: "docs/**/*.md"}}
        """,
    )
    cases = load_suite(suite).cases
    assert [case.id for case in cases] == [
        "summarise-a",
        "summarise-b",
        "deep-a",
        "deep-b",
        "deep-sub-c",  # below the pattern's folder: its folders join the id
    ]
    assert cases[1].messages[-1].content == "Summarise: Beta\n"
    assert cases[1].vars["style"] == "short"
    assert cases[1].tags == ("docs",)
    assert len(cases[1].grading.checks) == 1
    assert cases[4].messages[-1].content == "Gamma\n"


def test_a_file_var_in_a_toml_case_file_is_relative_to_the_suite(project: Path) -> None:
    write(
        project / "cases" / "greet.toml",
        """\
        query = "{{ doc }}"
        [vars]
        doc = { file = "docs/b.md" }
        """,
    )
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: cases\n")
    assert prompts(suite) == {"greet": "Beta\n"}


def test_rows_from_csv_see_a_suite_file_var_and_keep_their_cells_as_text(project: Path) -> None:
    write(project / "rows.csv", 'id,doc\nr1,"{file: docs/a.md}"\n')
    suite = write(
        project / "suite.yaml",
        """\
        target: app.py:answer
        vars: {policy: {file: policy.md}}
        prompt: "{{ policy }}{{ doc }}"
        cases_from: rows.csv
        """,
    )
    assert prompts(suite) == {"r1": "Be brief.\n{file: docs/a.md}"}


def test_a_jsonl_row_may_not_refer_to_files(project: Path) -> None:
    write(project / "rows.jsonl", '{"id": "ok", "query": "q"}\n')
    with (project / "rows.jsonl").open("a", encoding="utf-8") as rows:
        rows.write(json.dumps({"id": "r", "query": "q", "vars": {"doc": {"file": "docs/a.md"}}}))
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: rows.jsonl\n")
    message = problems(suite)
    assert "rows.jsonl:2: vars.doc: file references" in message
    assert "not in CSV or JSONL rows" in message


# --- mistakes, located ---------------------------------------------------------------------

MISTAKES = """\
target: app.py:answer
vars:
  policy: {file: polcy.md}
  every: {files: "docs/*.md"}
test_cases:
  - id: missing-glob
    query: "{{ doc }}"
    vars: {doc: {files: "nothing/*.md"}}
  - id: two-globs
    query: "{{ doc }}{{ other }}"
    vars: {doc: {files: "docs/*.md"}, other: {files: "docs/*.md"}}
  - id: not-a-path
    query: "{{ doc }}"
    vars: {doc: {file: 3}}
  - id: folder
    query: "{{ doc }}"
    vars: {doc: {file: docs}}
"""


def test_every_mistake_is_located_at_its_var(project: Path) -> None:
    message = problems(write(project / "suite.yaml", MISTAKES))
    lines = message.splitlines()
    assert lines[0] == "6 problems found:"
    suite = project / "suite.yaml"
    assert lines[1] == (
        f"{suite}:3:12: vars.policy.file: 'polcy.md': no such file (a `file:` path is "
        f"relative to the suite's folder, {project}). Did you mean 'policy.md'?"
    )
    assert lines[2].startswith(f"{suite}:4:11: vars.every.files: `files:` and `paths:` make one")
    assert lines[3] == (
        f"{suite}:8:18: test_cases[0].vars.doc.files: 'nothing/*.md' matches no file: the "
        f"pattern is relative to the suite's folder, {project} (`*` matches within a folder, "
        "`**` across folders)"
    )
    assert lines[4].startswith(f"{suite}:11:47: test_cases[1].vars.other.files: a case makes")
    assert lines[5].startswith(f"{suite}:14:18: test_cases[2].vars.doc.file: `file:` takes")
    assert lines[6].startswith(f"{suite}:17:18: test_cases[3].vars.doc.file: ")
    assert "a folder, not a regular file" in lines[6]
    # The command line says the same, exit 2, no traceback.
    result = CliRunner().invoke(main, ["validate", "suite.yaml"])
    assert result.exit_code == 2
    assert "suite.yaml:3:12: vars.policy.file: 'polcy.md': no such file" in result.output
    assert "Traceback" not in result.output


def test_a_file_that_is_not_utf8_or_too_large_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "docs" / "latin1.md").write_bytes("café".encode("latin-1"))
    suite = write(
        project / "suite.yaml",
        """\
        target: app.py:answer
        test_cases:
          - {id: one, query: "{{ doc }}", vars: {doc: {file: docs/latin1.md}}}
          - {id: two, query: "{{ doc }}", vars: {doc: {file: docs/big.md}}}
        """,
    )
    write(project / "docs" / "big.md", "word " * 100)
    message = problems(suite)
    assert "test_cases[0].vars.doc.file: " in message
    assert "not UTF-8 text (byte 4 is not UTF-8); save it as UTF-8" in message
    (project / "docs" / "latin1.md").write_text("café", encoding="utf-8")
    monkeypatch.setenv("PROMPTUM_MAX_SUITE_BYTES", "400")  # above the suite's own size
    message = problems(suite)
    assert "test_cases[1].vars.doc.file: " in message
    assert "the file has 500 bytes, over the limit of 400; a var's file is read whole" in message
    assert "PROMPTUM_MAX_SUITE_BYTES" in message
    monkeypatch.delenv("PROMPTUM_MAX_SUITE_BYTES")
    assert prompts(suite)["one"] == "café"


def test_a_named_pipe_is_refused_before_it_is_opened(project: Path) -> None:
    os.mkfifo(project / "docs" / "pipe.md")
    suite = write(
        project / "suite.yaml",
        'target: app.py:answer\ntest_cases:\n  - {id: one, query: "{{ doc }}", '
        'vars: {doc: {files: "docs/*.md"}}}\n',
    )
    assert "this is a named pipe, not a regular file" in problems(suite)


def test_two_files_giving_one_case_id_are_refused(project: Path) -> None:
    write(project / "docs" / "a.txt", "text\n")
    suite = write(
        project / "suite.yaml",
        'target: app.py:answer\ntest_cases:\n  - {id: s, query: "{{ doc }}", '
        'vars: {doc: {files: "docs/a.*"}}}\n',
    )
    message = problems(suite)
    assert "docs/a.md and docs/a.txt would both make the case id ending `-a`" in message


def test_a_case_without_an_id_is_reported_once(project: Path) -> None:
    suite = write(
        project / "suite.yaml",
        'target: app.py:answer\ntest_cases:\n  - {query: "{{ doc }}", '
        'vars: {doc: {files: "docs/*.md"}}}\n',
    )
    assert problems(suite).startswith("1 problem found:")
    assert "every test case needs an `id`" in problems(suite)


# --- inside the project only ------------------------------------------------------------------


@pytest.mark.parametrize(
    "written",
    [
        "{file: ../private/secret.md}",
        "{file: {outside}}",
        '{files: "../private/*.md"}',
        '{files: "/**/secret.md"}',  # refused before the machine is searched
        "{file: docs/link.md}",
        '{files: "docs/*.md"}',  # a link among the files matched
    ],
)
def test_a_file_outside_the_project_is_refused(project: Path, written: str) -> None:
    secret = project.parent / "private" / "secret.md"
    (project / "docs" / "link.md").symlink_to(secret)
    written = written.replace("{outside}", str(secret))
    suite = write(
        project / "suite.yaml",
        f'target: app.py:answer\ntest_cases:\n  - {{id: one, query: "{{{{ doc }}}}", '
        f"vars: {{doc: {written}}}}}\n",
    )
    message = problems(suite)
    assert "test_cases[0].vars.doc.file" in message
    assert "outside the suite's folder and the working directory" in message
    assert "the-secret-value" not in message


def test_a_case_file_or_glob_outside_the_project_is_refused(project: Path) -> None:
    write(project.parent / "private" / "cases.yaml", "- {id: leak, query: the-secret-value}\n")
    for source in ("../private/cases.yaml", "../private/*.yaml"):
        suite = write(project / "suite.yaml", f"target: app.py:answer\ncases_from: ['{source}']\n")
        message = problems(suite)
        assert f"{suite}:2:14: cases_from[0]: " in message
        assert "outside the suite's folder and the working directory" in message
        assert "the-secret-value" not in message


# --- YAML case files in cases_from -------------------------------------------------------


def test_yaml_case_files_and_globs_in_cases_from(project: Path) -> None:
    write(
        project / "cases" / "b.yaml",
        """\
        - id: second
          query: "{{ doc }}"
          vars: {doc: {file: docs/b.md}}
        """,
    )
    write(
        project / "cases" / "a.yml",
        """\
        - &base
          id: first
          query: "hello {{ who }}"
          vars: {who: world}
          checks: [{type: contains, value: hello}]
        - <<: *base
          id: again
          vars: {who: again}
        - id: each
          query: "{{ doc }}"
          vars: {doc: {files: "docs/*.md"}}
        - query: no id of its own
        """,
    )
    write(project / "rows.csv", "id,query\nrow,from a row\n")
    suite = write(
        project / "suite.yaml",
        """\
        target: app.py:answer
        test_cases:
          - {id: inline, query: inline}
        cases_from: ["cases/*.y*ml", rows.csv]
        """,
    )
    loaded = load_suite(suite)
    assert [(case.id, case.messages[-1].content) for case in loaded.cases] == [
        ("inline", "inline"),
        ("first", "hello world"),
        ("again", "hello again"),
        ("each-a", "Alpha {{ not_a_var }}\n"),
        ("each-b", "Beta\n"),
        ("a-4", "no id of its own"),  # the file's name and the case's number in it
        ("second", "Beta\n"),
        ("row", "from a row"),
    ]
    # Each case is located in the file it was written in.
    sources = [case.source for case in loaded.cases]
    assert sources[1:6] == [f"{project / 'cases/a.yml'}:{line}" for line in (1, 6, 9, 9, 12)]
    assert sources[6] == f"{project / 'cases/b.yaml'}:1"
    assert project / "cases/a.yml" in loaded.inputs
    assert project / "cases/b.yaml" in loaded.inputs


def test_mistakes_in_a_yaml_case_file_are_located_in_it(project: Path) -> None:
    cases = write(
        project / "cases" / "a.yaml",
        """\
        - id: one
          query: hi
        - id: two
          querry: hi
        - id: three
          query: "{{ missing }}"
          id: again
        """,
    )
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: cases/a.yaml\n")
    message = problems(suite)
    assert f"{cases}:4:3: [1].querry: unknown key 'querry'. Did you mean 'query'?" in message
    assert f"{cases}:7:3: [2].id: key 'id' appears twice; keep one" in message
    write(cases, "- id: one\n  query: [unclosed\n")
    message = problems(suite)
    assert message.startswith(f"1 problem found:\n{cases}:3:1: invalid YAML")
    assert "suite.yaml" not in message  # the error is the case file's own


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("test_cases: []\n", "this is a suite, not a case file"),
        ("id: one\nquery: hi\n", "is a list of cases, as under `test_cases:`"),
        ("just text\n", "is a list of cases, as under `test_cases:`"),
    ],
)
def test_a_case_file_that_is_not_a_list_is_refused(project: Path, text: str, expected: str) -> None:
    cases = write(project / "cases.yaml", text)
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: cases.yaml\n")
    message = problems(suite)
    assert message.startswith(f"1 problem found:\n{cases}:1:1: ")
    assert expected in message


def test_a_case_file_run_by_itself_says_what_it_is(project: Path) -> None:
    cases = write(project / "cases.yaml", "- {id: one, query: hi}\n")
    message = problems(cases)
    assert message.startswith(f"{cases}:1:1: a suite is a mapping with `test_cases:`")
    assert message.endswith(
        "a list of cases is a YAML case file: name it in a suite's `cases_from`"
    )


@pytest.mark.parametrize("text", ["", "[]\n"])
def test_an_empty_case_file_is_named_at_its_cases_from_line(project: Path, text: str) -> None:
    write(project / "cases.yaml", text)
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: [cases.yaml]\n")
    message = problems(suite)
    assert f"{suite}:2:14: cases_from[0]: " in message
    assert "the YAML case file holds no case" in message


def test_a_glob_matching_nothing_is_named_at_its_cases_from_line(project: Path) -> None:
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: [cases/*.yaml]\n")
    message = problems(suite)
    assert f"{suite}:2:14: cases_from[0]: 'cases/*.yaml' matches no file or folder" in message


def test_a_glob_beside_the_suite_does_not_read_the_suite_itself(project: Path) -> None:
    write(project / "more.yaml", "- {id: more, query: hi}\n")
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: ['*.yaml']\n")
    assert list(prompts(suite)) == ["more"]


def test_a_file_named_like_a_glob_is_read_as_written(project: Path) -> None:
    write(project / "cases[1].yaml", "- {id: one, query: hi}\n")
    write(project / "cases1.yaml", "- {id: other, query: hi}\n")
    suite = write(project / "suite.yaml", "target: app.py:answer\ncases_from: ['cases[1].yaml']\n")
    assert list(prompts(suite)) == ["one"]


# --- folder runs ------------------------------------------------------------------------


def test_a_folder_run_does_not_take_case_files_for_suites(project: Path) -> None:
    graded = "checks: [{type: min_length, value: 1}]"  # else validate names them, ungraded
    write(project / "evals" / "cases" / "a.yaml", f"- {{id: one, query: hi, {graded}}}\n")
    write(project / "evals" / "cases" / "b.yaml", f"- {{id: two, query: hi, {graded}}}\n")
    write(project / "evals" / "stray.yaml", "- {id: three, query: hi}\n")
    write(project / "evals" / "app.py", APP)
    write(project / "evals" / "suite.yaml", "target: app.py:answer\ncases_from: ['cases/*.yaml']\n")
    found = find_suites([project / "evals"])
    assert found.suites == [project / "evals" / "suite.yaml"]
    # The files the suite reads are no news; a list nobody reads gets a note saying what it is.
    assert found.skipped == [
        (
            project / "evals" / "stray.yaml",
            "not a suite: a list (a YAML case file? a suite reads one with `cases_from`)",
        )
    ]
    result = CliRunner().invoke(main, ["validate", "evals"])
    assert result.exit_code == 0, result.output
    assert "suite.yaml: 2 cases" in result.output
    assert "cases/a.yaml" not in result.output


# --- a real run: files reach the model, cached and resumed like any case -------------------


@pytest.fixture
def server(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultServer]:
    """An OpenAI-compatible server on 127.0.0.1 answering `fault/...` models."""
    with fault_server() as running:
        monkeypatch.setenv("PROMPTUM_FAULT_BASE_URL", running.base_url)
        yield running


EXTRA = "- {id: extra, query: 'Extra: {{ policy }}', checks: [{type: contains, value: ok}]}\n"
RUN_SUITE = """\
models: [fault/m]
vars: {policy: {file: policy.md}}
system: "{{ policy }}"
test_cases:
  - id: summarise
    query: "Summarise: {{ doc }}"
    vars: {doc: {files: "docs/*.md"}}
    checks: [{type: contains, value: ok}]
cases_from: ["cases/*.yaml"]
"""


def test_a_run_sends_the_files_and_caches_and_resumes_their_cases(
    project: Path, server: FaultServer
) -> None:
    write(project / "cases" / "extra.yaml", EXTRA)
    write(project / "suite.yaml", RUN_SUITE)
    server.default = Reply.ok("ok")
    run = ["run", "suite.yaml", "-c", "1", "--no-store", "-o", "run.json"]
    first = CliRunner().invoke(main, run)
    assert first.exit_code == 0, first.output
    asked = [
        (r.body["messages"][0]["content"], r.body["messages"][-1]["content"])
        for r in server.requests
    ]
    assert asked == [
        ("Be brief.\n", "Summarise: Alpha {{ not_a_var }}\n"),
        ("Be brief.\n", "Summarise: Beta\n"),
        ("Be brief.\n", "Extra: Be brief.\n"),
    ]
    results = load_run(project / "run.json").results
    assert [(r.case_id, r.status) for r in results] == [
        ("summarise-a", "pass"),
        ("summarise-b", "pass"),
        ("extra", "pass"),
    ]
    again = CliRunner().invoke(main, run)
    assert "3 of 3 answers from the cache" in again.output
    assert len(server.requests) == 3
    # A changed file changes its case's request: asked again, the others still cached.
    write(project / "docs" / "b.md", "Beta, edited\n")
    edited = CliRunner().invoke(main, run)
    assert "2 of 3 answers from the cache" in edited.output
    assert server.requests[-1].body["messages"][-1]["content"] == "Summarise: Beta, edited\n"


def _start_run(*extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "-c", "1", "--no-cache",
         "-o", "run.json", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=os.environ.copy(),
    )  # fmt: skip


@pytest.mark.slow
def test_an_interrupted_run_resumes_the_cases_of_files_and_globs(
    project: Path, server: FaultServer
) -> None:
    write(project / "cases" / "extra.yaml", EXTRA)
    write(project / "suite.yaml", RUN_SUITE)
    server.queue(Reply.ok("ok"), Reply.ok("ok"))
    server.default = Reply.hang(60)
    process = _start_run()
    wait_for_requests(server, 3, process)  # two answered, the third hangs
    output = interrupt_once(process)
    assert [r.case_id for r in load_run(project / "run.json").results] == [
        "summarise-a",
        "summarise-b",
    ]

    server.default = Reply.ok("ok")
    before = len(server.requests)
    process = _start_run("--resume")
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 0, output
    assert [r.body["messages"][-1]["content"] for r in server.requests[before:]] == [
        "Extra: Be brief.\n"  # only the case not finished: the glob's cases kept their ids
    ]
    resumed = load_run(project / "run.json")
    assert resumed.complete
    assert [r.case_id for r in resumed.results] == ["summarise-a", "summarise-b", "extra"]


def test_the_example_of_the_docs_loads_as_it_says(project: Path) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "suites.md").read_text(encoding="utf-8")
    section = docs.split("## Data by reference", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    write(project / "docs" / "faq.md", "Questions\n")
    write(project / "cases" / "extra.yaml", "- {id: extra, vars: {doc: hi, audience: all}}\n")
    suite = write(project / "suite.yaml", example)
    assert prompts(suite) == {
        "summarise-a": "Summarise for new staff:\n\nAlpha {{ not_a_var }}\n",
        "summarise-b": "Summarise for new staff:\n\nBeta\n",
        "summarise-faq": "Summarise for new staff:\n\nQuestions\n",
        "faq": "Summarise for customers:\n\nQuestions\n",
        "extra": "Summarise for all:\n\nhi",
    }
