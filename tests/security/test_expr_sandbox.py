"""`expr` checks and transforms are data, as templates are: no expression runs code, reads a
secret or exhausts the machine, wherever it is written (a check's value, a check's
transform, a case's transform, the suite's default transform).

An expression runs on each response, so what the template sandbox refuses at load is
refused either at load (located, exit 2) or when the response is graded (an error grade,
never a pass); in both cases no marker file appears, no secret is printed, no traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from promptum.checks import CheckDefinition, check_grades
from promptum.cli import main
from promptum.templating import TemplateError, _budget, compile_expression
from promptum.values.completion import Completion
from tests.support.expression_suites import EXPRESSION_FIELDS, suite_with, write_suite
from tests.support.fault_server import FaultServer, Reply, project_fault_server

SECRET_NAME = "PROMPTUM_TEST_SECRET_TOKEN"
SECRET = "s3cr3t-0b7c21e5-never-print-me"
TOUCH = "touch MARKER"
ENV = f"os.environ.{SECRET_NAME}"

# Each payload, evaluated by an unsandboxed Jinja (or a JavaScript engine), would create
# MARKER, print the secret or allocate gigabytes; the fragment is what the refusal says.
LOAD: dict[str, tuple[str, str]] = {
    "lipsum-globals-os": (
        f"lipsum.__globals__['os'].popen('{TOUCH}').read()",
        "unknown variable 'lipsum'",
    ),
    "cycler-init-globals": (f"cycler.__init__.__globals__.{ENV}", "unknown variable 'cycler'"),
    "output-class-mro": (
        "output.__class__.__mro__[1].__subclasses__()",
        "templates cannot access `__subclasses__`",  # the outermost access is refused first
    ),
    "vars-class-globals": (f"vars.__class__.__init__.__globals__.{ENV}", "templates cannot access"),
    "template-reference-context": (
        f"self._TemplateReference__context.cycler.__init__.__globals__.{ENV}",
        "unknown variable 'self'",
    ),
    "flask-request-config": (
        f"request.application.__globals__.__builtins__.__import__('os').popen('{TOUCH}')",
        "unknown variable 'request'",
    ),
    "attr-filter": ("output | attr('__class__')", "templates cannot use the `attr`"),
    "format-filter-builds-dunder": (
        "output | attr('%c%cclass%c%c' | format(95, 95, 95, 95))",
        "templates cannot use the `attr` filter",
    ),
    "map-attribute": (
        "[output] | map(attribute='__class__') | first",
        "templates cannot access `__class__`",
    ),
    "selectattr-dunder": (
        "tool_calls | selectattr('__class__') | list",
        "templates cannot access `__class__`",
    ),
    "javascript-require": (
        f"output.length < 500 && require('child_process').execSync('{TOUCH}')",
        "expression syntax error",
    ),
    "javascript-eval": (f"eval(\"require('child_process').execSync('{TOUCH}')\")", "'eval'"),
    "javascript-function": ("Function('return process')().env", "unknown variable 'Function'"),
    "python-import": (f"__import__('os').system('{TOUCH}')", "unknown variable '__import__'"),
    "a-statement": ("{% include '/etc/passwd' %}", "template tags (`{{ }}`, `{% %}`) are not"),
}

RUN: dict[str, tuple[str, str]] = {
    "dunder-built-at-runtime": (
        "''[('_' * 2) ~ 'class' ~ ('_' * 2)]",
        "templates cannot access `__class__` of a str",
    ),
    "dunder-from-the-response": (  # the model answers "Ahoy there, __class__"
        "output[output.split(', ')[1]]",
        "templates cannot access `__class__` of a str",
    ),
    "str-format-fields": (
        f"'{{0.__class__.__init__.__globals__[os].environ[{SECRET_NAME}]}}'.format(output)",
        "templates cannot use `str.format`",
    ),
    "percent-format": ("'%s' % output", "templates cannot format text with `%`"),
    "mutate-a-list": ("[].append(1)", "templates cannot access `append`"),
    "string-multiplication-bomb": (
        "('x' * 10**9) | length",
        "templates cannot build more than 10,000,000",
    ),
    "str-method-bomb": ("'x'.ljust(10**9) | length", "templates cannot build more than"),
    "replace-bomb": (
        "('x' * 1000) | replace('x', 'x' * 1000) | replace('x', 'x' * 1000)",
        "templates cannot build more than",
    ),
    "range-too-long": ("range(10**10) | list | length", "templates cannot make a range"),
    "steps-bomb": (
        "range(100000) | map('string') | map('length') | map('string') | map('length') | "
        "map('string') | map('length') | map('string') | map('length') | map('string') | "
        "map('length') | map('string') | list | length",
        "templates cannot make more than 1,000,000",
    ),
    "power-bomb": ("(9 ** 9999999) % 10", "templates cannot compute integers"),
    "json-nesting-bomb": ("('[' * 100000) | from_json", "from_json: "),
}


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FaultServer]:
    monkeypatch.setenv(SECRET_NAME, SECRET)
    with project_fault_server(tmp_path, monkeypatch) as running:
        running.default = Reply.ok("Ahoy there, __class__")
        yield running


def write(tmp_path: Path, field: str, payload: str) -> tuple[Path, Path]:
    marker = tmp_path / "marker"
    suite = suite_with(field, payload.replace("MARKER", str(marker)))
    return write_suite(tmp_path / "suite.yaml", suite), marker


def run_unharmed(tmp_path: Path, field: str, payload: str, *options: str) -> tuple[Path, Result]:
    """Run a suite with `payload` in `field`, asserting that it ran no shell command and that
    the output shows neither the secret nor a traceback; return the suite's path and the run."""
    path, marker = write(tmp_path, field, payload)
    result = CliRunner().invoke(main, ["run", str(path), *options])
    assert not marker.exists(), "the payload ran a shell command"
    assert SECRET not in result.output
    assert "Traceback" not in result.output
    return path, result


@pytest.mark.parametrize("field", EXPRESSION_FIELDS)
@pytest.mark.parametrize("payload", LOAD)
def test_payload_is_refused_at_load(
    tmp_path: Path, project: FaultServer, payload: str, field: str
) -> None:
    expression, refusal = LOAD[payload]
    path, result = run_unharmed(tmp_path, field, expression)

    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.output.splitlines() if refusal in line]
    assert line.startswith(f"{path}:")
    where = EXPRESSION_FIELDS[field] if field != "defaults_transform" else "defaults.transform"
    assert f": {where}: " in line
    assert project.requests == []  # refused before any model was called


@pytest.mark.parametrize("field", EXPRESSION_FIELDS)
@pytest.mark.parametrize("payload", RUN)
def test_payload_is_an_error_grade_when_it_runs(
    tmp_path: Path, project: FaultServer, payload: str, field: str
) -> None:
    expression, refusal = RUN[payload]
    _, result = run_unharmed(tmp_path, field, expression, "-o", "report.json")

    assert result.exit_code == 1, result.output
    data = json.loads(Path("report.json").read_text(encoding="utf-8"))
    (case,) = data["results"]
    assert case["status"] == "error"
    (grade,) = case["grades"]
    assert not grade["passed"]
    kind = "expr" if field == "expr" else "transform"
    assert grade["error"].startswith(f"{kind} `"), grade["error"]
    assert refusal in grade["error"], grade["error"]


def test_a_javascript_answer_or_var_stays_text(tmp_path: Path, project: FaultServer) -> None:
    marker = tmp_path / "marker"
    javascript = f"require('child_process').execSync('touch {marker}')"
    project.default = Reply.ok(javascript)
    suite = {
        "models": ["fault/m"],
        "vars": {"js": javascript},
        "defaults": {"transform": "output ~ ' ' ~ vars.js"},
        "test_cases": [
            {
                "id": "a",
                "query": "{{ js }}",
                "checks": [
                    {"type": "expr", "value": "output == vars.js ~ ' ' ~ vars.js"},
                    {"type": "expr", "value": "'child_process' in output"},
                    {"type": "contains", "value": "execSync", "transform": "vars.js"},
                ],
            }
        ],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, width=10_000), encoding="utf-8")

    result = CliRunner().invoke(main, ["run", str(path)])

    assert result.exit_code == 0, result.output
    assert not marker.exists()
    assert project.requests[0].body["messages"][-1]["content"] == javascript  # text, sent as text


def test_the_budget_is_per_evaluation() -> None:
    half = compile_expression("('x' * 6000000) | length", ("output",))
    assert half.evaluate({}) == 6000000
    assert half.evaluate({}) == 6000000  # the first evaluation's spending is forgotten
    whole = compile_expression("('x' * 6000000 ~ 'x' * 6000000) | length", ("output",))
    with pytest.raises(TemplateError, match=r"^templates cannot build more than 10,000,000"):
        whole.evaluate({})


def test_slow_steps_are_stopped_by_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # Few steps, each scanning a long list: ~100,000 seconds of work without the limit.
    monkeypatch.setattr(_budget, "MAX_TEMPLATE_SECONDS", 0.2)
    slow = compile_expression("range(100000) | select('in', vars.xs) | list", ("vars",))
    with pytest.raises(TemplateError, match=r"^templates cannot take more than 0\.2 seconds"):
        slow.evaluate({"vars": {"xs": list(range(-200_000, 0))}})


def test_a_long_answer_is_charged_to_the_budget() -> None:
    # The response is the model's to choose: a filter over it pays for what it builds.
    check = CheckDefinition.model_validate({"type": "expr", "value": "(output * 3) | length > 0"})
    (grade,) = check_grades([check], Completion(text="x" * 4_000_000))
    assert grade.error is not None
    assert "templates cannot build more than 10,000,000" in grade.error
