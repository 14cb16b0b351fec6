"""Collection: which suites become items, their names, markers, and selection by -k and -m."""

from __future__ import annotations

import pytest

from tests.pytest_plugin.plugin_project import SUITE, write_project

MATRIX = """\
name: matrix
models: [fault/a, fault/b]
test_cases:
  - id: greet
    query: Say hello
    tags: [smoke, greeting]
    checks: [{type: contains, value: score}]
  - id: twice
    query: Say it twice
    repeat: 2
    models: [fault/a]
"""


def collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest("--collect-only", "-q", *args)
    return [line for line in result.outlines if "::" in line]


def test_each_case_model_and_repeat_is_an_item_named_suite_case_model(
    pytester: pytest.Pytester,
) -> None:
    write_project(pytester, {"matrix.yaml": MATRIX})
    assert collected(pytester) == [
        "prompts/matrix.yaml::matrix/greet[fault/a]",
        "prompts/matrix.yaml::matrix/greet[fault/b]",
        "prompts/matrix.yaml::matrix/twice[fault/a-repeat1]",
        "prompts/matrix.yaml::matrix/twice[fault/a-repeat2]",
    ]


def test_a_case_without_models_runs_on_the_default_model(pytester: pytest.Pytester) -> None:
    write_project(pytester, {"bare.yaml": "test_cases:\n  - {id: hi, query: Hi}\n"})
    assert collected(pytester) == ["prompts/bare.yaml::bare/hi[local/smollm2]"]


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (["-k", "twice"], ["twice[fault/a-repeat1]", "twice[fault/a-repeat2]"]),
        (["-k", "fault/b"], ["greet[fault/b]"]),
        (["-k", "greet and not fault/b"], ["greet[fault/a]"]),
        (["-k", "repeat2"], ["twice[fault/a-repeat2]"]),
        (["-m", "smoke"], ["greet[fault/a]", "greet[fault/b]"]),
        (["-m", "greeting and not smoke"], []),
    ],
)
def test_selection_by_case_model_and_tag(
    pytester: pytest.Pytester, selection: list[str], expected: list[str]
) -> None:
    write_project(pytester, {"matrix.yaml": MATRIX})
    names = [line.split("::matrix/")[1] for line in collected(pytester, *selection)]
    assert names == expected


def test_tags_are_registered_markers_and_promptum_marks_every_case(
    pytester: pytest.Pytester,
) -> None:
    write_project(pytester)
    pytester.makepyfile(test_code="def test_plain():\n    pass\n")
    # --strict-markers would refuse an unregistered tag.
    assert collected(pytester, "--strict-markers", "-m", "smoke") == [
        "prompts/demo.yaml::demo/passes[fault/m]"
    ]
    assert collected(pytester, "-m", "must_pass") == ["prompts/demo.yaml::demo/fails[fault/m]"]
    assert collected(pytester, "-m", "not promptum") == ["test_code.py::test_plain"]
    assert len(collected(pytester, "-m", "promptum")) == 5


def test_suites_outside_testpaths_are_collected_unless_paths_are_named(
    pytester: pytest.Pytester,
) -> None:
    write_project(pytester, ini="testpaths = tests\npromptum_suites = prompts/*.yaml")
    pytester.mkdir("tests")
    pytester.path.joinpath("tests", "test_code.py").write_text("def test_plain():\n    pass\n")
    assert len(collected(pytester)) == 6  # testpaths, and the configured suites
    assert collected(pytester, "tests") == ["tests/test_code.py::test_plain"]
    assert len(collected(pytester, "prompts/demo.yaml")) == 5


def test_a_glob_on_the_command_line_collects_its_suites(pytester: pytest.Pytester) -> None:
    write_project(pytester, ini="testpaths = tests")
    pytester.mkdir("tests")
    pytester.path.joinpath("tests", "test_code.py").write_text("def test_plain():\n    pass\n")
    assert collected(pytester) == ["tests/test_code.py::test_plain"]
    assert len(collected(pytester, "--promptum-suites", "prompts/*.yaml")) == 6
    assert len(collected(pytester, "tests", "--promptum-suites", "prompts/*.yaml")) == 6


def test_unconfigured_the_plugin_collects_nothing(pytester: pytest.Pytester) -> None:
    write_project(pytester, ini="")
    result = pytester.runpytest("--collect-only", "-q", "prompts")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_unconfigured_pytest_imports_no_heavy_part_of_promptum(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
        import sys

        def pytest_sessionfinish(session):
            names = sorted(n for n in sys.modules if n.split(".")[0] in ("promptum", "openai"))
            with open("modules.txt", "w") as out:
                out.write("\\n".join(names))
        """
    )
    pytester.makepyfile(test_code="def test_plain():\n    pass\n")
    result = pytester.runpytest_subprocess("-q")
    result.assert_outcomes(passed=1)
    modules = (pytester.path / "modules.txt").read_text().split()
    assert "promptum.pytest_plugin._plugin" in modules  # loaded by the entry point
    heavy = ("promptum.runner", "promptum.providers", "promptum.session", "promptum.suites")
    assert [m for m in modules if m.startswith(heavy) or m == "openai"] == []


def test_a_broken_suite_is_a_collection_error_naming_file_and_line(
    pytester: pytest.Pytester,
) -> None:
    broken = (
        "models: [fault/m]\ntest_cases:\n  - id: x\n    query: Hi\n"
        "    checks: [{type: contans, value: a}]\n"
    )
    write_project(pytester, {"broken.yaml": broken, "demo.yaml": SUITE})
    result = pytester.runpytest("-q", "--collect-only")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = result.stdout.str()
    assert "prompts/broken.yaml:5" in output
    assert "Did you mean 'contains'?" in output
    assert "Traceback" not in output


def test_a_case_id_defined_twice_is_a_collection_error(pytester: pytest.Pytester) -> None:
    # Ids are namespaced by suite: only two suites of one name can define one id twice.
    again = "name: demo\nmodels: [fault/m]\ntest_cases:\n  - {id: passes, query: Hi}\n"
    write_project(pytester, {"demo.yaml": SUITE, "other.yaml": again})
    result = pytester.runpytest("-q", "--collect-only")
    result.stdout.fnmatch_lines(["*prompts/other.yaml:4: duplicate case id 'passes'*"])


def test_a_glob_matching_no_suite_is_a_usage_error(pytester: pytest.Pytester) -> None:
    write_project(pytester, ini="")
    result = pytester.runpytest("--promptum-suites", "nowhere/*.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--promptum-suites 'nowhere/*.yaml' matches no suite*"])


def test_a_folder_of_toml_cases_is_one_suite(pytester: pytest.Pytester) -> None:
    folder = pytester.mkdir("triage")
    (folder / "login.toml").write_text('id = "login"\nquery = "Hi"\nmodels = ["fault/m"]\n')
    (folder / "billing.toml").write_text('id = "billing"\nquery = "Hi"\nmodels = ["fault/m"]\n')
    pytester.makeini("[pytest]\npromptum_suites = triage\n")
    assert collected(pytester) == [
        "triage::triage/billing[fault/m]",
        "triage::triage/login[fault/m]",
    ]


def test_a_glob_that_also_matches_a_suites_yaml_case_file_collects_the_suite_only(
    pytester: pytest.Pytester,
) -> None:
    evals = pytester.mkdir("evals")
    (evals / "cases").mkdir()
    (evals / "cases" / "more.yaml").write_text("- {id: extra, query: Hi}\n")
    (evals / "stray.yaml").write_text("- {id: loose, query: Hi}\n")
    (evals / "suite.yaml").write_text(
        "models: [fault/m]\ncases_from: cases/more.yaml\ntest_cases:\n  - {id: own, query: Hi}\n"
    )
    pytester.makeini("[pytest]\npromptum_suites = evals/**/*.yaml\n")
    assert collected(pytester) == [
        "evals/suite.yaml::suite/own[fault/m]",
        "evals/suite.yaml::suite/extra[fault/m]",
    ]
