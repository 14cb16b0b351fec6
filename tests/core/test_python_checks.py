"""`type: python` checks: a function beside the suite grades each response, as a grade."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from promptum import CheckInput, Completion, Grade, Session, evaluate_checks
from promptum.cases import TestCase
from promptum.checks import CheckDefinition
from promptum.errors import ConfigError
from promptum.providers import ClientOptions, EndpointConfig
from promptum.runner import grade, grade_async
from promptum.suites import load_suite, suite_json_schema
from tests.support.cli import write
from tests.support.fault_server import Reply, fault_server

CHECKS = '''
    """Checks of the user's own, beside the suite."""

    import asyncio

    from promptum import Grade

    SEEN = []


    def no_apology(response):
        """The response does not apologise."""
        return "sorry" not in response.text.lower()


    def tone(response):
        return 0.8 if "Paris" in response.text else 0.2


    def short(response):
        return len(response.text) < 10, f"{len(response.text)} characters"


    def graded(response):
        return Grade("check", "my-grade", False, 0.1, "too formal", "tone is casual")


    async def slow(response):
        await asyncio.sleep(0.01)
        return response.case_id == "paris"


    def seen(response):
        SEEN.append(response)
        return True


    def broken(response):
        raise ValueError("boom")


    def wordy(response):
        return "yes"


    def over(response):
        return 1.5


    def triple(response):
        return (True, "why", 3)
'''


def suite_with(folder: Path, *checks: str, extra: str = "") -> Path:
    """A suite in ``folder`` (beside a checks.py) with one case running ``checks``."""
    write(folder / "checks.py", CHECKS)
    lines = [
        "models: fault/x",
        "test_cases:",
        "  - id: paris",
        '    query: "Capital of {{ country }}?"',
        "    vars: {country: France}",
        "    tags: [geo]",
        "    checks:",
        *(f"      - {check}" for check in checks),
        *([f"    {extra}"] if extra else []),
    ]
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def loaded(path: Path) -> ModuleType:
    """The module promptum loaded from ``path`` (under a name of its own)."""
    return next(m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == str(path))


def only_case(path: Path) -> TestCase:
    (case,) = load_suite(path).cases
    return case


def test_each_kind_of_answer_becomes_a_custom_grade(tmp_path: Path) -> None:
    case = only_case(
        suite_with(
            tmp_path,
            '{type: python, value: "checks.py:no_apology"}',
            '{type: python, value: "checks.py:tone"}',
            '{type: python, value: "checks.py:tone", threshold: 0.9}',
            '{type: python, value: "checks.py:short"}',
            '{type: python, value: "checks.py:graded"}',
            '{type: python, value: "checks.py:slow"}',
        )
    )
    grades = grade(case, Completion(text="The capital is Paris.", model="fault/x"))
    assert [(g.kind, g.name, g.passed, g.score, g.reason) for g in grades] == [
        ("custom", "no_apology", True, None, None),
        ("custom", "tone", True, 0.8, "score 0.8 ≥ 0.5"),  # the default threshold: 0.5
        ("custom", "tone", False, 0.8, "score 0.8 < 0.9"),
        ("custom", "short", False, None, "21 characters"),
        ("custom", "my-grade", False, 0.1, "too formal"),  # the user's grade, as a custom one
        ("custom", "slow", True, None, None),  # async: run to completion outside a loop
    ]
    assert grades[0].description == "The response does not apologise."  # its docstring
    assert grades[1].description == "Python check checks.py:tone"
    assert grades[1].details == {"threshold": 0.5}


def test_a_failing_bool_says_so(tmp_path: Path) -> None:
    case = only_case(suite_with(tmp_path, '{type: python, value: "checks.py:no_apology"}'))
    (failed,) = grade(case, Completion(text="Sorry, I cannot."))
    assert (failed.passed, failed.failed, failed.reason) == (False, True, "returned False")
    assert failed.summary == "no_apology: returned False"


def test_the_check_sees_the_response_its_call_and_its_case(tmp_path: Path) -> None:
    write(
        tmp_path / "city.py",
        """
        from pydantic import BaseModel

        class City(BaseModel):
            name: str
        """,
    )
    case = only_case(
        suite_with(
            tmp_path,
            '{type: python, value: "checks.py:seen"}',
            extra="response_model: city:City",
        )
    )
    completion = Completion(
        text='{"name": "Paris"}', output={"name": "Paris"}, latency_ms=12.0, cost_usd=0.001
    )
    asyncio.run(grade_async(case, completion, model="fault/x", repeat=2))
    (seen,) = loaded(tmp_path / "checks.py").SEEN
    assert isinstance(seen, CheckInput)
    assert seen.text == '{"name": "Paris"}'
    assert type(seen.output).__name__ == "City"  # parsed into the case's response_model
    assert seen.output.name == "Paris"
    assert seen.completion is completion
    assert seen.completion.latency_ms == 12.0
    assert dict(seen.vars) == {"country": "France"}
    assert (seen.case_id, seen.model, seen.repeat, seen.tags) == ("paris", "fault/x", 2, ("geo",))
    with pytest.raises(TypeError):
        seen.vars["country"] = "Spain"  # type: ignore[index]  # read-only: the case's own


@pytest.mark.parametrize(
    ("function", "error"),
    [
        ("broken", "checks.py:broken raised ValueError: boom"),
        (
            "wordy",
            "checks.py:wordy returned str 'yes'; a check returns a bool, a score from 0 to 1, "
            "a (passed, reason) pair or a Grade",
        ),
        ("over", "checks.py:over returned the score 1.5, outside 0-1"),
        ("triple", "checks.py:triple returned a tuple of 3 ((True, 'why', 3))"),
    ],
)
def test_a_check_that_raises_or_answers_nonsense_is_an_error_grade(
    tmp_path: Path, function: str, error: str
) -> None:
    case = only_case(
        suite_with(
            tmp_path,
            f'{{type: python, value: "checks.py:{function}"}}',
            "{type: contains, value: Paris}",
        )
    )
    bad, contains = grade(case, Completion(text="Paris."))
    assert bad.kind == "custom"
    assert bad.name == function
    assert not bad.passed
    assert bad.error is not None
    assert bad.error.startswith(error)
    assert contains.passed  # the other checks still ran


def test_python_checks_run_through_the_runner_and_async_ones_are_awaited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = suite_with(
        tmp_path,
        '{type: python, value: "checks.py:slow"}',
        '{type: python, value: "checks.py:broken"}',
        '{type: python, value: "checks.py:seen"}',
        extra="repeat: 2",
    )
    with fault_server() as server:
        server.queue(Reply.ok("Paris."), Reply.ok("Paris!"))
        options = ClientOptions(
            cache=False, endpoints={"fault": EndpointConfig(base_url=server.base_url)}
        )
        session = Session(client_options=options)
        session.add_suite(path)
        run = session.run()
    assert sorted(r.repeat for r in run.results) == [1, 2]  # results count from 1
    for result in run.results:
        slow, broken, _seen = result.grades
        assert slow.passed
        assert broken.error == "checks.py:broken raised ValueError: boom"
        assert result.status == "error"  # a check that could not grade is an error
        assert "broken error: checks.py:broken raised ValueError: boom" in result.reasons
    seen = loaded(tmp_path / "checks.py").SEEN
    assert sorted(s.repeat for s in seen) == [0, 1]  # CheckInput.repeat counts from 0
    assert {s.model for s in seen} == {"fault/x"}


def test_a_failure_outranks_a_check_that_erred(tmp_path: Path) -> None:
    case = only_case(
        suite_with(
            tmp_path,
            '{type: python, value: "checks.py:broken"}',
            '{type: python, value: "checks.py:no_apology"}',
        )
    )
    from promptum.values.grade import status_of_grades

    assert status_of_grades(grade(case, Completion(text="sorry"))) == "fail"


def write_broken_suite(folder: Path) -> Path:
    write(folder / "checks.py", CHECKS)
    write(folder / "syntax.py", "def f(:\n")
    return write(
        folder / "suite.yaml",
        """
        test_cases:
          - id: a
            query: hi
            checks:
              - {type: python, value: "checks.py:no_apolgy"}
              - {type: python, value: "missing.py:f"}
              - {type: python, value: "nowhere_module:f"}
              - {type: python, value: "checks.py:SEEN"}
              - {type: python, value: "checks.py:asyncio"}
              - {type: python, value: "checks"}
              - {type: python, value: "syntax.py:f"}
              - {type: python, value: "../checks.py:no_apology"}
              - {type: python, value: "checks.py:no_apology", model: openai/x}
        """,
    )


def test_a_reference_that_does_not_load_is_a_located_load_error(tmp_path: Path) -> None:
    path = write_broken_suite(tmp_path)
    with pytest.raises(ConfigError) as raised:
        load_suite(path)
    header, *lines = str(raised.value).splitlines()
    assert header == "9 problems found:"
    where = f"{path}:"
    expected = [
        (6, "checks[0]", "checks.py has no function 'no_apolgy'. Did you mean 'no_apology'?"),
        (7, "checks[1]", f"there is no file {tmp_path / 'missing.py'}; a `file.py:function`"),
        (8, "checks[2]", "cannot import module 'nowhere_module' for check 'python' 'nowhere_"),
        (9, "checks[3]", "checks.py:SEEN is a list, not a function of the response"),
        (10, "checks[4]", "checks.py:asyncio is a module, not a function of the response"),
        (11, "checks[5]", "check 'python' needs a Python function: `file.py:function` beside"),
        (12, "checks[6]", "module 'syntax' of check 'python' 'syntax.py:"),
        (13, "checks[7]", "check 'python' needs a Python function"),
        (14, "checks[8]", "check 'python': it takes no model"),
    ]
    assert len(lines) == len(expected), lines
    for line, (number, field, message) in zip(lines, expected, strict=True):
        assert line.startswith(f"{where}{number}:"), line
        assert f"test_cases[0].{field}" in line, line
        assert message in line, line


def test_a_function_of_the_wrong_shape_is_refused_when_the_suite_loads(tmp_path: Path) -> None:
    write(tmp_path / "shapes.py", "def two(a, b):\n    return True\n\nclass Check:\n    pass\n")
    for reference, message in [
        ("shapes.py:two", "shapes.py:two cannot be called as f(response): its signature is (a, b)"),
        ("shapes.py:Check", "shapes.py:Check is a type, not a function"),
    ]:
        with pytest.raises(ValueError, match="check 'python'") as raised:
            CheckDefinition.model_validate(
                {"type": "python", "value": reference}, context={"folder": tmp_path}
            )
        assert message in str(raised.value)
    with pytest.raises(ValueError, match="one argument, the response"):
        CheckDefinition.model_validate(
            {"type": "python", "value": "shapes.py:two"}, context={"folder": tmp_path}
        )


def test_validate_lists_the_modules_python_checks_import(tmp_path: Path) -> None:
    write(tmp_path / "lib/helpers.py", "def fine(response):\n    return True\n")
    path = suite_with(
        tmp_path,
        '{type: python, value: "checks.py:no_apology"}',
        '{type: python, value: "lib/helpers.py:fine"}',
        '{type: python, value: "checks:tone"}',
    )
    suite = load_suite(path)
    assert [(i.module, i.path) for i in suite.python_imports] == [
        ("checks", tmp_path / "checks.py"),
        ("lib.helpers", tmp_path / "lib" / "helpers.py"),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "validate", "suite.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": "/usr/bin:/bin", "PROMPTUM_FAULT_BASE_URL": "http://127.0.0.1:9/v1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "imports Python: checks (checks.py), lib.helpers (lib/helpers.py)" in done.stdout


def test_two_suites_each_with_a_checks_py_get_their_own(tmp_path: Path) -> None:
    for folder, word in (("a", "alpha"), ("b", "beta")):
        write(
            tmp_path / folder / "checks.py",
            f"def word(response):\n    return '{word}' in response.text\n",
        )
        write(
            tmp_path / folder / "suite.yaml",
            f"""
            test_cases:
              - id: {folder}
                query: hi
                checks: [{{type: python, value: "checks.py:word"}}]
            """,
        )
    cases = [only_case(tmp_path / folder / "suite.yaml") for folder in ("a", "b")]
    assert [grade(case, Completion(text="alpha"))[0].passed for case in cases] == [True, False]


def test_defaults_checks_and_data_rows_run_python_checks_too(tmp_path: Path) -> None:
    write(tmp_path / "checks.py", CHECKS)
    write(tmp_path / "rows.jsonl", '{"id": "r1", "query": "hi"}\n{"id": "r2", "query": "yo"}\n')
    path = write(
        tmp_path / "suite.yaml",
        """
        defaults:
          checks: [{type: python, value: "checks.py:no_apology"}]
        cases_from: rows.jsonl
        """,
    )
    suite = load_suite(path)
    assert [[g.name for g in grade(c, Completion(text="ok"))] for c in suite.cases] == [
        ["no_apology"],
        ["no_apology"],
    ]
    assert [i.module for i in suite.python_imports] == ["checks"]


def test_from_python_a_python_check_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "checks.py", CHECKS)
    monkeypatch.chdir(tmp_path)
    definitions = [
        CheckDefinition(type="python", value="checks.py:no_apology"),
        CheckDefinition(type="python", value="checks.py:slow"),
    ]
    results = evaluate_checks(definitions, Completion(text="Sorry."))
    assert [(r.type, r.passed, r.reason) for r in results] == [
        ("no_apology", False, "returned False"),
        ("slow", False, "returned False"),  # no case: its id is empty
    ]


def test_an_async_check_graded_by_sync_code_inside_a_running_loop_still_runs(
    tmp_path: Path,
) -> None:
    case = only_case(suite_with(tmp_path, '{type: python, value: "checks.py:slow"}'))

    async def inside() -> list[Grade]:
        return grade(case, Completion(text="x"))  # sync code called from async code

    (graded,) = asyncio.run(inside())
    assert graded.passed


def test_the_schema_names_the_python_type(tmp_path: Path) -> None:
    check = suite_json_schema()["$defs"]["CheckDefinition"]
    assert "python" in check["properties"]["type"]["enum"]
    assert "python: the function `file.py:function`" in check["description"]
