"""`promptum import promptfoo`: hand-written promptfoo configs become suites that run."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from promptum import Completion, evaluate_checks
from promptum.checks import CheckDefinition
from promptum.cli import main
from promptum.importers._csv_tests import assertion_from_text
from promptum.importers._javascript import UntranslatableError, translate
from promptum.importers._writer import Commented, dump
from promptum.reporting import load_run
from tests.support.cli import run_promptum
from tests.support.support_service import support_service

DATA = Path(__file__).parents[1] / "data" / "promptfoo"
CONFIGS = [
    "basic",
    "files",
    "providers",
    "http",
    "python",
    "tools",
    "unconvertible",
    "refused",
    "forms",
]


def _copy(name: str, tmp_path: Path) -> Path:
    folder = tmp_path / name
    shutil.copytree(DATA / name, folder)
    return folder


def _import(config: Path | str, *args: str) -> Result:
    return CliRunner().invoke(main, ["import", "promptfoo", str(config), *args])


def _converted(name: str, tmp_path: Path) -> tuple[Path, Result]:
    folder = _copy(name, tmp_path)
    done = _import(folder / "promptfooconfig.yaml", "-o", str(folder / "suite.yaml"))
    assert done.exit_code == 0, done.output
    return folder, done


def _summary(result: Result) -> str:
    return next(line for line in result.output.splitlines() if line.startswith("assertions:"))


@pytest.mark.parametrize("name", CONFIGS)
def test_each_config_converts_into_a_suite_that_validates(name: str, tmp_path: Path) -> None:
    folder, done = _converted(name, tmp_path)
    assert "Traceback" not in done.output
    checked = CliRunner().invoke(main, ["validate", str(folder / "suite.yaml")])
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith("✓")


@pytest.mark.parametrize(
    ("name", "summary"),
    [
        ("basic", "22 converted exactly, 5 approximately"),
        ("files", "9 converted exactly, 1 approximately"),
        ("python", "8 converted exactly, 1 approximately"),
        ("tools", "0 converted exactly, 4 approximately"),
        ("unconvertible", "2 converted exactly, 2 approximately"),
    ],
)
def test_the_summary_counts_assertions_by_how_they_converted(
    name: str, summary: str, tmp_path: Path
) -> None:
    _, done = _converted(name, tmp_path)
    assert _summary(done).startswith(f"assertions: {summary}")


def test_the_docs_show_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "migrating-from-promptfoo.md").read_text()
    block = docs.split("```console\n", 1)[1].split("```", 1)[0]
    command, *printed = block.splitlines()
    folder = _copy("basic", tmp_path)
    monkeypatch.chdir(folder)
    done = _import(*command.split()[4:])
    assert command == "$ promptum import promptfoo promptfooconfig.yaml -o suite.yaml"
    assert done.exit_code == 0
    assert done.output.splitlines() == printed


def test_what_does_not_convert_is_listed_with_its_line_and_why(tmp_path: Path) -> None:
    _, done = _converted("unconvertible", tmp_path)
    assert "assertions: 2 converted exactly, 2 approximately" in done.output
    assert "11 not converted" in done.output
    listed = done.output.split("not converted:\n", 1)[1].splitlines()
    expected = [
        "promptfooconfig.yaml:5: prompt prompt_function.py: a prompt function is code",
        "promptfooconfig.yaml:8: `env`: a suite reads no environment",
        "promptfooconfig.yaml:10: `nunjucksFilters`: filters written in JavaScript are code",
        "promptfooconfig.yaml:12: `scenarios`",
        "promptfooconfig.yaml:23: tests generate_tests.py: tests written by code",
        "promptfooconfig.yaml:25: var file://photo.png: no such file",
        "promptfooconfig.yaml:27: options.prefix: promptum has no such option",
        "promptfooconfig.yaml:31: assertion `webhook`: it calls a web service",
        "promptfooconfig.yaml:33: assertion `moderation`",
        "promptfooconfig.yaml:34: assertion `javascript`: the JavaScript uses a regular expression",
        "promptfooconfig.yaml:36: assertion `javascript`: the JavaScript starts with `const`",
        "promptfooconfig.yaml:40: assertion `javascript`: the JavaScript is in a file",
        "promptfooconfig.yaml:42: assertion `select-best`",
        "promptfooconfig.yaml:44: assertion `not-llm-rubric`: promptum cannot negate it",
        "promptfooconfig.yaml:46: assertion `levenshtein`: its transform's JavaScript uses a "
        "regular expression",
        "promptfooconfig.yaml:49: assertion `assert-set`: promptum has no group of checks",
        "promptfooconfig.yaml:57: assertion `perplexity`",
        "promptfooconfig.yaml:60: assertion `context-recall`",
    ]
    shown = [line.strip() for line in listed if line.startswith("  ")]
    for start in expected:
        assert any(line.startswith(start) for line in shown), (start, shown)
    lines = [int(re.match(r"promptfooconfig.yaml:(\d+)", line)[1]) for line in shown]  # type: ignore[index]
    assert lines == sorted(lines)  # in the config's order


def test_a_check_promptum_refuses_is_left_out_with_promptums_reason(tmp_path: Path) -> None:
    folder, done = _converted("tools", tmp_path)
    assert (
        "promptfooconfig.yaml:23: assertion `trajectory:tool-used`: promptum refused the "
        "converted check: test_cases[1].checks[1].value: 'get_wether' is not a tool this case "
        "offers" in done.output
    )
    assert "1 not converted" in _summary(done)
    assert "get_wether" not in (folder / "suite.yaml").read_text()


def test_a_prompt_promptum_refuses_is_left_out_not_the_cases(tmp_path: Path) -> None:
    folder, done = _converted("refused", tmp_path)
    listed = done.output.split("not converted:\n", 1)[1]
    assert (
        "promptfooconfig.yaml:5: prompt prompt-1: it reads `_conversation`: promptum runs a "
        "conversation on no prompt variants" in listed
    )
    assert "promptfooconfig.yaml:16: assertion `contains`: promptum refused" in listed
    suite = yaml.safe_load((folder / "suite.yaml").read_text())
    assert suite["prompt"] == "Q: {{query}} in {{ context }}"  # the one prompt left
    assert suite["defaults"]["context"] == "Paris is in France."  # the `context` var
    assert suite["judge"]["criteria"] == {"faithful": {"prompt": "faithfulness"}}
    assert [case["id"] for case in suite["test_cases"]] == ["test-1"]


def test_comments_name_the_lines_the_checks_come_from(tmp_path: Path) -> None:
    folder, _ = _converted("basic", tmp_path)
    config = (folder / "promptfooconfig.yaml").read_text().splitlines()
    suite = (folder / "suite.yaml").read_text().splitlines()
    pointed = 0
    for comment, line in itertools.pairwise(suite):
        match = re.fullmatch(r"\s*# promptfooconfig.yaml:(\d+)", comment)
        if match and line.lstrip().startswith(("- {type:", "- type:")):
            assert "type:" in config[int(match[1]) - 1], (comment, line)
            pointed += 1
    assert pointed >= 20
    assert "# approximately: promptum measures the distance from the trimmed" in "\n".join(suite)


def test_the_conversion_is_stable(tmp_path: Path) -> None:
    folder = _copy("python", tmp_path)
    config = folder / "promptfooconfig.yaml"
    first = _import(config, "-o", str(folder / "suite.yaml"))
    suite, adapter = (
        (folder / "suite.yaml").read_bytes(),
        (folder / "suite_adapter.py").read_bytes(),
    )
    second = _import(config, "-o", str(folder / "suite.yaml"), "--force")
    assert first.exit_code == second.exit_code == 0, second.output
    assert (folder / "suite.yaml").read_bytes() == suite
    assert (folder / "suite_adapter.py").read_bytes() == adapter
    assert first.output == second.output


def test_an_existing_suite_is_not_replaced_without_force(tmp_path: Path) -> None:
    folder = _copy("basic", tmp_path)
    (folder / "suite.yaml").write_text("keep me\n")
    done = _import(folder / "promptfooconfig.yaml", "-o", str(folder / "suite.yaml"))
    assert done.exit_code == 2
    assert "exists; pass --force" in done.output
    assert (folder / "suite.yaml").read_text() == "keep me\n"


@pytest.mark.parametrize(
    ("file", "says"),
    [
        ("not_a_list.yaml", "not a promptfoo config (the file is a list)"),
        ("kubernetes.yaml", "not a promptfoo config (its keys: apiVersion, data, kind, metadata)"),
    ],
)
def test_a_file_that_is_not_a_promptfoo_config_is_refused(
    file: str, says: str, tmp_path: Path
) -> None:
    folder = _copy("unconvertible", tmp_path)
    done = _import(folder / file, "-o", str(folder / "suite.yaml"))
    assert done.exit_code == 2
    assert says in done.output
    assert (
        "expected a promptfoo config: a YAML mapping with `prompts`, `providers` and `tests`"
        in (done.output)
    )
    assert "Traceback" not in done.output
    assert not (folder / "suite.yaml").exists()


REFUSED = {
    "a promptum suite": (
        "suite.yaml",
        "test_cases:\n  - {id: a, query: hi}\n",
        "this is a promptum suite already",
    ),
    "invalid YAML": (
        "promptfooconfig.yaml",
        "prompts:\n  - hi\ntests:\n  - vars: {q: a: b, x: 1}\n",
        "error: promptfooconfig.yaml:4:16: invalid YAML: did not find expected ','",
    ),
    "a key written twice, as in a suite": (
        "promptfooconfig.yaml",
        "prompts: [hi]\nprompts: [ho]\ntests:\n  - vars: {q: a}\n",
        "promptfooconfig.yaml:2:1: prompts: key 'prompts' appears twice; keep one",
    ),
}
"""A file the importer refuses, by why: its name, its text and what the refusal says."""


@pytest.mark.parametrize(("name", "text", "says"), REFUSED.values(), ids=REFUSED)
def test_a_file_that_cannot_be_converted_is_refused_saying_why(
    name: str, text: str, says: str, tmp_path: Path
) -> None:
    config = tmp_path / name
    config.write_text(text)
    done = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert done.exit_code == 2
    assert says in done.output


def test_a_config_is_read_within_a_suites_limits_raised_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "defaults: &d {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6}\nprompts: [hi]\n"
        "providers: [openai:gpt-4o-mini]\ntests:\n  - vars: *d\n"
    )
    monkeypatch.setenv("PROMPTUM_MAX_ALIAS_VALUES", "5")
    refused = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert refused.exit_code == 2
    assert "promptfooconfig.yaml:5:5: tests[0]: through its aliases (`*name`)" in refused.output
    assert "set PROMPTUM_MAX_ALIAS_VALUES on the machine" in refused.output
    monkeypatch.setenv("PROMPTUM_MAX_ALIAS_VALUES", "100")
    done = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert done.exit_code == 0, done.output
    assert "vars: {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6}" in (tmp_path / "out.yaml").read_text()


BOMB = """\
prompts: ["Q {{a}} {{b}} {{c}} {{d}} {{e}} {{f}} {{g}} {{h}}"]
providers: [openai:gpt-4o-mini]
tests:
  - vars:
      a: &l [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]
      b: *l
      c: *l
      d: *l
      e: *l
      f: *l
      g: *l
      h: *l
"""


def test_list_vars_that_multiply_past_the_limit_are_refused_before_any_case_is_built(
    tmp_path: Path,
) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(BOMB)  # 20^8 cases: building them exhausted the memory
    refused = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert refused.exit_code == 2
    assert refused.exception is None or isinstance(refused.exception, SystemExit)
    assert (
        "promptfooconfig.yaml:4: this test's list vars make 25,600,000,000 cases (promptfoo "
        "runs every combination; the lists' lengths: a: 20, b: 20, c: 20, d: 20, e: 20, f: 20, "
        "g: 20, h: 20), over the limit of 100,000 cases an import writes; shorten the lists"
    ) in refused.output
    assert "set PROMPTUM_MAX_IMPORTED_CASES on the machine" in refused.output
    assert not (tmp_path / "out.yaml").exists()


def test_the_case_limit_counts_the_cases_of_all_tests_and_is_raised_by_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rows.csv").write_text("a,b\n1,2\n3,4\n")
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        'prompts: ["Q {{a}} {{b}}"]\nproviders: [openai:gpt-4o-mini]\ntests:\n'
        "  - vars: {a: &l [1, 2, 3], b: *l}\n  - vars: {a: *l, b: *l}\n  - file://rows.csv\n"
    )
    monkeypatch.setenv("PROMPTUM_MAX_IMPORTED_CASES", "17")
    refused = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert refused.exit_code == 2
    assert (
        "promptfooconfig.yaml:5: this test's list vars make 9 cases (promptfoo runs every "
        "combination; the lists' lengths: a: 3, b: 3) and the tests before it 9, over the "
        "limit of 17 cases an import writes; split the tests over several configs"
    ) in refused.output
    monkeypatch.setenv("PROMPTUM_MAX_IMPORTED_CASES", "19")
    refused = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert refused.exit_code == 2
    assert "rows.csv:3: this test makes 1 case and the tests before it 19" in refused.output
    monkeypatch.setenv("PROMPTUM_MAX_IMPORTED_CASES", "20")
    done = _import(config, "-o", str(tmp_path / "out.yaml"))
    assert done.exit_code == 0, done.output
    assert "20 cases" in done.output
    monkeypatch.setenv("PROMPTUM_MAX_IMPORTED_CASES", "many")
    refused = _import(config, "-o", str(tmp_path / "out.yaml"), "--force")
    assert refused.exit_code == 2
    assert "PROMPTUM_MAX_IMPORTED_CASES must be a positive number of cases" in refused.output


def test_converting_runs_none_of_the_configs_code_and_reads_no_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy("python", tmp_path)
    marker = tmp_path / "imported"
    for name in ("provider.py", "grading.py"):
        path = folder / name
        path.write_text(f"open({str(marker)!r}, 'a').write('{name}')\n" + path.read_text())
    monkeypatch.setenv("SUPPORT_TOKEN", "secret-token-value")
    done = _import(folder / "promptfooconfig.yaml", "-o", str(folder / "suite.yaml"))
    assert done.exit_code == 0, done.output
    assert not marker.exists()  # validated too, yet the provider and grading code never ran
    http = _copy("http", tmp_path)
    assert _import(http / "promptfooconfig.yaml", "-o", str(http / "suite.yaml")).exit_code == 0
    assert "secret-token-value" not in (http / "suite.yaml").read_text()
    providers = _copy("providers", tmp_path)
    assert (
        _import(providers / "promptfooconfig.yaml", "-o", str(providers / "s.yaml")).exit_code == 0
    )
    assert "not-a-real-key" not in (providers / "s.yaml").read_text()


def test_files_outside_the_project_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the machine's secret")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    (project / "promptfooconfig.yaml").write_text(
        f"prompts:\n  - 'Hi {{{{name}}}}'\n  - file://{secret}\n  - file://../secret.txt\n"
        "tests:\n  - vars: {name: Ada}\n"
    )
    done = _import(project / "promptfooconfig.yaml", "-o", str(project / "suite.yaml"))
    assert done.exit_code == 0, done.output
    assert done.output.count("outside the config's folder and the working directory") == 2
    assert "secret" not in (project / "suite.yaml").read_text()


def test_providers_map_to_model_ids_and_endpoints(tmp_path: Path) -> None:
    folder, done = _converted("providers", tmp_path)
    suite = yaml.safe_load((folder / "suite.yaml").read_text())
    assert suite["models"] == [
        "openai/gpt-4o-mini",
        "anthropic/claude-3-5-haiku-latest",
        "openrouter/meta-llama/llama-3.1-8b-instruct",
        "ollama/llama3.2",
        "team-vllm/qwen2.5-7b-instruct",
        "groq/llama-3.1-8b-instant",
    ]
    assert suite["endpoints"]["team-vllm"] == {"base_url": "http://127.0.0.1:8000/v1"}
    assert suite["defaults"]["params"] == {
        "temperature": 0,
        "max_tokens": 32,
        "top_p": 1,
    }
    assert "promptfooconfig.yaml:12: provider config `max_tokens`: runs with 32" in done.output
    assert (
        "promptfooconfig.yaml:26: provider echo: a promptum suite is answered by its models or "
        "by one target" in done.output
    )
    assert list(suite["prompts"]) == ["Short-answer"]


def test_prompts_files_and_tests_files_become_variants_and_cases(tmp_path: Path) -> None:
    folder, _ = _converted("files", tmp_path)
    suite = yaml.safe_load((folder / "suite.yaml").read_text())
    assert list(suite["prompts"]) == ["questions-1", "questions-2", "chat", "chat-yaml"]
    assert suite["prompts"]["questions-2"] == "Name the capital city of {{country}} in one word."
    assert suite["prompts"]["chat"][0]["role"] == "system"
    cases = {case["id"]: case for case in suite["test_cases"]}
    assert cases["france-by-csv"]["checks"] == [
        # icontains lower-cases both sides, as toLowerCase() does (no case folding)
        {"type": "expr", "value": '("paris" | lower) in (output | lower)', "metric": "capital"},
        {"type": "not_contains", "value": "Berlin", "metric": "capital"},
    ]
    # A CSV levenshtein without a threshold gets promptfoo's 0.75: only an exact match passes.
    assert cases["italy-strictly"]["checks"] == [
        {"type": "levenshtein", "value": {"expected": "Rome", "max_distance": 0}}
    ]
    assert cases["norway-one-test-in-a-file"]["checks"][0]["type"] == "expr"  # icontains-any
    assert cases["about-a-document"]["vars"]["notes"] == {"file": "docs/france.md"}
    assert cases["summarise-each-document"]["vars"]["notes"] == {"files": "docs/*.md"}


def test_the_other_forms_of_prompts_providers_and_defaults(tmp_path: Path) -> None:
    folder, done = _converted("forms", tmp_path)
    suite = yaml.safe_load((folder / "suite.yaml").read_text())
    assert suite["prompts"] == {
        "short": "In which country is {{city}}? Facts: {{ facts | tojson }}",
        "chats-1": [{"role": "user", "content": "Where is {{city}}?"}],
        "chats-2": [
            {"role": "system", "content": "Answer in one word."},
            {"role": "user", "content": "Country of {{city}}?"},
        ],
    }
    assert suite["repeat"] == 2
    assert suite["vars"] == {"tone": "neutral"}
    # The provider's transform runs first, defaultTest's on what it gave.
    assert suite["defaults"]["transform"] == "(output | trim) | lower"
    assert suite["defaults"]["threshold"] == 0.5
    assert suite["defaults"]["checks"][0] == {
        "type": "expr",
        "value": '("france" | lower) in (output | lower)',
        "metric": "country",
        "weight": 2,
    }
    [case] = suite["test_cases"]
    assert case["judge"] == {
        "criteria": {
            "closedqa": {
                "rubric": "Meets this criterion: Says which country the city is in",
                "threshold": 0.6,
            }
        },
        "model": "openai/gpt-4o",
    }
    assert "promptfooconfig.yaml:12: evaluateOptions.maxConcurrency" in done.output


def test_an_output_elsewhere_refers_to_the_configs_files_from_there(tmp_path: Path) -> None:
    folder = _copy("python", tmp_path)
    out = tmp_path / "suites" / "shop.yaml"
    done = _import(folder / "promptfooconfig.yaml", "-o", str(out))
    assert done.exit_code == 0, done.output
    adapter = (tmp_path / "suites" / "shop_adapter.py").read_text()
    assert "(Path(__file__).resolve().parent / '../python').resolve()" in adapter
    ran = CliRunner().invoke(main, ["run", str(out), "-o", str(tmp_path / "run.json")])
    assert ran.exit_code == 0, ran.output


def test_python_provider_and_asserts_run_through_the_adapter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, _ = _converted("python", tmp_path)
    monkeypatch.chdir(folder)
    ran = CliRunner().invoke(main, ["run", "suite.yaml", "-o", "run.json"])
    assert ran.exit_code == 0, ran.output
    run = load_run(folder / "run.json")
    assert {r.case_id: r.status for r in run.results} == {
        "price-question": "pass",
        "structured-answer": "pass",
    }
    # Break the provider's answer: the converted python checks now fail, as promptfoo's would.
    provider = folder / "provider.py"
    provider.write_text(provider.read_text().replace("12", "15"))
    again = run_promptum("run", "suite.yaml", "-o", "again.json", cwd=folder)
    assert again.returncode == 1, again.stdout + again.stderr
    failed = {r.case_id for r in load_run(folder / "again.json").results if r.status == "fail"}
    assert failed == {"price-question", "structured-answer"}


@pytest.mark.parametrize(
    ("returned", "threshold", "inverse", "passed"),
    [
        (True, None, False, True),
        ("false", None, False, False),
        (0.01, None, False, True),  # promptfoo: a number passes above 0 without a threshold
        (0, None, False, False),
        (0.3, 0.5, False, False),
        (0.5, 0.5, False, True),
        ({"pass": True, "score": 0.2, "reason": "ok"}, 0.5, False, False),
        ({"pass_": True, "score": 1.0}, None, False, True),
        ('{"pass": false, "score": 0}', None, False, False),
        (True, None, True, False),
        (0.0, None, True, True),
    ],
)
def test_the_adapter_reads_python_results_as_promptfoo_does(
    returned: object, threshold: float | None, inverse: bool, passed: bool, tmp_path: Path
) -> None:
    folder, _ = _converted("python", tmp_path)
    spec = importlib.util.spec_from_file_location("adapter_under_test", folder / "suite_adapter.py")
    assert spec is not None
    assert spec.loader is not None
    adapter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(adapter)
    assert adapter._graded(returned, threshold, inverse)[0] is passed


# The JavaScript translator: the common one-line shapes, graded as JavaScript would grade them.

TRANSLATED = [
    ("output.length < 20", "short answer", True),
    ("output.length < 5", "short answer", False),
    ("output.includes('Paris')", "It is Paris.", True),
    ("!output.includes('Paris')", "It is Paris.", False),
    ("output.startsWith('Ahoy')", "Ahoy matey", True),
    ("output.toLowerCase().endsWith('matey')", "Ahoy MATEY", True),
    ("JSON.parse(output).status === 'ok'", '{"status": "ok"}', True),
    ("JSON.parse(output).status !== 'ok'", '{"status": "ok"}', False),
    (
        "JSON.parse(output).items.length >= 2 && JSON.parse(output).items[0] == 'a'",
        '{"items": ["a", "b"]}',
        True,
    ),
    ("output.includes('x') || output.trim() === 'y'", "  y ", True),
    ("return output.split(' ').length <= 3;\n", "one two three four", False),
    ("Array.isArray(JSON.parse(output))", "[1, 2]", True),
    ("Object.keys(JSON.parse(output)).length === 1", '{"a": 1}', True),
]


@pytest.mark.parametrize(("code", "answer", "passes"), TRANSLATED)
def test_javascript_one_liners_translate_to_expressions_that_grade_alike(
    code: str, answer: str, passes: bool
) -> None:
    expression = translate(code).text
    check = CheckDefinition(type="expr", value=expression)
    [result] = evaluate_checks([check], Completion(text=answer))
    assert result.passed is passes, (expression, result.reason)


def test_context_vars_become_the_cases_vars() -> None:
    code = "context.vars.city.length > 0 ? output.includes(context.vars.city) : false"
    assert translate(code).text == (
        '(vars["city"] in output) if ((vars["city"] | length) > 0) else false'
    )


def test_a_numeric_javascript_score_keeps_promptfoos_pass_rule(tmp_path: Path) -> None:
    folder, _ = _converted("basic", tmp_path)
    suite = (folder / "suite.yaml").read_text()
    assert "((output | length) / 100) >= 0.1" in suite  # threshold given: score >= threshold


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("output.match(/abc/)", "uses a regular expression literal"),
        ("const n = output.length; return n < 5", "starts with `const`"),
        ("output.split(' ').some(w => w === 'x')", "defines an arrow function"),
        ("context.prompt.includes('x')", "uses `context.prompt`"),
        ("`${output}`.length", "uses a template literal"),
        ("fetch('https://example.com')", "uses `fetch`"),
        ("output.length < 5; output.length > 1", "has several statements"),
        ("JSON.parse(output).total + 1", "adds values that may be text or numbers"),
    ],
)
def test_javascript_that_is_not_a_simple_expression_is_refused_with_why(
    code: str, why: str
) -> None:
    with pytest.raises(UntranslatableError, match=re.escape(why)):
        translate(code)


@pytest.mark.parametrize(
    "payload",
    ["a}}b%}c#}", "'); __import__('os').system('x'); ('", "}}{# #}{", "\\u0041\"'"],
)
def test_text_in_the_javascript_stays_text_in_the_expression(payload: str) -> None:
    code = f"output.includes({json.dumps(payload)})"
    check = CheckDefinition(type="expr", value=translate(code).text)
    assert evaluate_checks([check], Completion(text=f"<{payload}>"))[0].passed
    assert not evaluate_checks([check], Completion(text="nothing"))[0].passed


def test_a_template_in_the_javascript_becomes_the_cases_var() -> None:
    assert translate("output.includes('{{ city }}')").text == 'vars["city"] in output'
    with pytest.raises(UntranslatableError, match="template that promptfoo renders"):
        translate("output.includes('in {{ city }}')")


# The CSV `__expected` shorthand, read as promptfoo reads it.


@pytest.mark.parametrize(
    ("cell", "assertion"),
    [
        ("Paris", {"type": "equals", "value": "Paris"}),
        ("contains:Paris", {"type": "contains", "value": "Paris"}),
        ("not-icontains:berlin", {"type": "not-icontains", "value": "berlin"}),
        ("contains-any:a, b,c", {"type": "contains-any", "value": ["a", "b", "c"]}),
        (
            "similar(0.9):The capital is Paris",
            {"type": "similar", "value": "The capital is Paris", "threshold": 0.9},
        ),
        ("similar:Paris", {"type": "similar", "value": "Paris", "threshold": 0.8}),
        ("levenshtein:Rome", {"type": "levenshtein", "value": "Rome", "threshold": 0.75}),
        ("grade:Is polite", {"type": "llm-rubric", "value": "Is polite"}),
        ("javascript: output.length < 5", {"type": "javascript", "value": "output.length < 5"}),
        ("python:len(output) < 5", {"type": "python", "value": "len(output) < 5"}),
        ("file://checks.py:f", {"type": "python", "value": "file://checks.py:f"}),
        ("is-json", {"type": "is-json"}),
    ],
)
def test_csv_expected_cells_read_as_promptfoo_reads_them(
    cell: str, assertion: dict[str, object]
) -> None:
    assert assertion_from_text(cell) == assertion


# The writer: whatever the text, the YAML written reads back as built.


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(max_size=20))
def test_the_written_yaml_reads_back_exactly(text: str, key: str) -> None:
    data = {"a": text, "b": [text, {"k": text}], "c": Commented({key or "x": text}, ("c",), "t")}
    written, spans = dump(data, ("header",))
    assert yaml.safe_load(written) == {"a": text, "b": [text, {"k": text}], "c": {key or "x": text}}
    assert "t" in spans


# Converted suites run on real parts: the embedded model, a real HTTP service.


def _run(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "-o", "run.json", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "args", "exit_code", "statuses"),
    [
        (
            "basic",
            [],
            1,
            {
                "france": "pass",
                "germany-scored": "pass",
                "japan-by-similarity": "pass",
                "spain-and-italy-1": "fail",
                "spain-and-italy-2": "fail",
            },
        ),
        ("providers", [], 0, {"test-1": "pass"}),
        ("tools", [], 1, None),
        ("unconvertible", ["--judge", "local/smollm2"], 1, None),
        ("files", ["-p", "questions-1", "-p", "chat-yaml"], 1, None),
        ("refused", ["--judge", "local/smollm2"], 1, {"test-1": "fail"}),
        ("forms", ["--judge", "local/smollm2", "-p", "short"], None, None),
    ],
)
@pytest.mark.embedded_model
def test_converted_suites_run_on_the_embedded_model(
    name: str,
    args: list[str],
    exit_code: int | None,
    statuses: dict[str, str] | None,
    tmp_path: Path,
) -> None:
    folder, _ = _converted(name, tmp_path)
    done = _run(folder, "-m", "local/smollm2", *args)
    if exit_code is None:  # a verdict either way from the tiny judge, never a crash
        assert done.returncode in (0, 1), done.stdout + done.stderr
    else:
        assert done.returncode == exit_code, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    run = load_run(folder / "run.json")
    assert run.complete
    # A promptfoo test without assertions is the one error: nothing grades its response.
    assert all(
        r.status != "error" or [g.name for g in r.grades] == ["ungraded"] for r in run.results
    ), [r.reasons for r in run.results]
    if statuses is not None:
        assert {r.case_id: r.status for r in run.results} == statuses


@pytest.mark.slow
def test_the_http_provider_becomes_a_target_that_runs(tmp_path: Path) -> None:
    folder = _copy("http", tmp_path)
    with support_service(token="tok-123") as service:
        config = folder / "promptfooconfig.yaml"
        port = service.url.split(":")[2].split("/")[0]
        config.write_text(config.read_text().replace("PORT", port))
        done = _import(config, "-o", str(folder / "suite.yaml"))
        assert done.exit_code == 0, done.output
        ran = _run(folder, env={"PROMPTUM_SUPPORT_BOT_AUTHORIZATION": "Bearer tok-123"})
        assert ran.returncode == 1, ran.stdout + ran.stderr
        bodies = sorted((r["body"] for r in service.requests), key=lambda body: body["user"])
        assert bodies == [
            {"question": "How long do refunds take?", "user": "ada"},
            {"question": "Do you ship abroad?", "user": "bob"},
        ]
    statuses = {r.case_id: r.status for r in load_run(folder / "run.json").results}
    assert statuses == {"refunds": "pass", "shipping-abroad": "fail"}
    assert json.loads((folder / "run.json").read_text())  # a complete report


def test_a_model_a_second_provider_repeats_is_left_out_saying_why(tmp_path: Path) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['Say {{word}}']\n"
        "providers:\n"
        "  - id: openai:gpt-4o-mini\n    config: {temperature: 0}\n"
        "  - id: openai:gpt-4o-mini\n    label: warm\n    config: {temperature: 1}\n"
        "tests:\n  - vars: {word: hi}\n    assert: [{type: contains, value: hi}]\n"
    )
    done = _import(config, "-o", str(tmp_path / "suite.yaml"))
    assert done.exit_code == 0, done.output
    assert (
        "promptfooconfig.yaml:5: provider warm: openai/gpt-4o-mini is already a model of the "
        "suite" in done.output
    )
    assert yaml.safe_load((tmp_path / "suite.yaml").read_text())["models"] == ["openai/gpt-4o-mini"]


INJECTED = "\n__import__('pathlib').Path('PWNED').touch()\ndef _z():\n    return (x"
ASSERTED = json.dumps("file://chk.py:get_assert)" + INJECTED)
PROVIDED = json.dumps("file://chk.py:call_api" + INJECTED)


@pytest.mark.parametrize(
    "config",
    [
        "prompts: ['Say {{word}}']\nproviders: [echo]\ntests:\n  - vars: {word: hi}\n"
        f"    assert: [{{type: python, value: {ASSERTED}}}]\n",
        f"prompts: ['Say {{{{word}}}}']\nproviders: [{PROVIDED}]\n"
        "tests:\n  - vars: {word: hi}\n    assert: [{type: contains, value: hi}]\n",
    ],
)
def test_a_function_name_that_is_code_is_refused_and_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chk.py").write_text(
        "def get_assert(output, context):\n    return True\n"
        "def call_api(prompt, options, context):\n    return {'output': prompt}\n"
    )
    (tmp_path / 'say"""hi.yaml').write_text(config)
    done = _import(tmp_path / 'say"""hi.yaml', "-o", str(tmp_path / "suite.yaml"))
    assert "is not a Python function name" in done.output, done.output
    assert CliRunner().invoke(main, ["validate", str(tmp_path / "suite.yaml")]).exit_code in (0, 2)
    assert not (tmp_path / "PWNED").exists()
    adapter = tmp_path / "suite_adapter.py"
    if adapter.exists():  # the file's name stands in docstrings: it ends none of them
        compile(adapter.read_text(), str(adapter), "exec")
