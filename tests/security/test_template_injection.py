"""A suite file is data: no template in any templated field runs code, reads a secret or
exhausts the machine. Each known server-side template injection payload is tried in every
field that is rendered, and `promptum validate` must refuse it, located, before anything
runs: no marker file appears, no secret is printed, no traceback.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from promptum.cli import main
from promptum.runner import TemplateError, render
from promptum.suites import load_suite
from promptum.templating import _budget, compile_expression

SECRET_NAME = "PROMPTUM_TEST_SECRET_TOKEN"
SECRET = "s3cr3t-7d1e9a04-never-print-me"
TOUCH = "touch MARKER"
ENV = f"lipsum.__globals__.os.environ.{SECRET_NAME}"
SUBCLASSES = "''.__class__.__mro__[1].__subclasses__()"

# Each payload, run by an unsandboxed Jinja, would create MARKER, print the secret (through
# an error message that names it) or allocate gigabytes / loop for hours.
PAYLOADS: dict[str, str] = {
    "lipsum-globals-os": f"{{{{ lipsum.__globals__['os'].popen('{TOUCH}').read() }}}}",
    "cycler-init-globals": f"{{{{ cycler.__init__.__globals__.os.popen('{TOUCH}').read() }}}}",
    "joiner-init-globals": f"{{{{ joiner.__init__.__globals__.os.popen('{TOUCH}').read() }}}}",
    "namespace-init-globals": (
        f"{{{{ namespace.__init__.__globals__.os.popen('{TOUCH}').read() }}}}"
    ),
    "mro-subclasses-popen": (
        f"{{% for c in {SUBCLASSES} %}}{{% if 'Popen' in c|string %}}"
        f"{{{{ c('{TOUCH}', shell=True).wait() }}}}{{% endif %}}{{% endfor %}}"
    ),
    "dunder-built-at-runtime": (
        "{% set d = '_' * 2 %}{% for c in ''[d ~ 'class' ~ d][d ~ 'mro' ~ d][1]"
        "[d ~ 'subclasses' ~ d]() %}{% if 'Popen' in c|string %}"
        f"{{{{ c('{TOUCH}', shell=True).wait() }}}}{{% endif %}}{{% endfor %}}"
    ),
    "template-reference-context": (
        "{{ self._TemplateReference__context.cycler.__init__.__globals__.os"
        f".popen('{TOUCH}').read() }}}}"
    ),
    "flask-request-config": (
        "{{ request.application.__globals__.__builtins__.__import__('os')"
        f".popen('{TOUCH}').read() ~ config.__class__ }}}}"
    ),
    "attr-filter": f"{{{{ (lipsum|attr('__globals__'))['os'].popen('{TOUCH}').read() }}}}",
    "format-filter-builds-dunder": (
        "{{ (lipsum|attr('%c%cglobals%c%c'|format(95, 95, 95, 95)))['os']"
        f".popen('{TOUCH}').read() }}}}"
    ),
    "map-attribute": (
        f"{{{{ ([lipsum]|map(attribute='__globals__')|first)['os'].popen('{TOUCH}').read() }}}}"
    ),
    "str-format-fields": (
        f"{{{{ {{}}['{{0.__globals__[os].environ[{SECRET_NAME}]}}'.format(lipsum)] }}}}"
    ),
    "secret-in-error-message": f"{{{{ {{}}[{ENV}] }}}}",
    "set-tricks": (
        "{% set g = lipsum.__globals__ %}{% set os = g.os %}"
        f"{{{{ os.popen('{TOUCH}').read() }}}}"
    ),
    "include-a-file": "{% include '/etc/passwd' %}",
    "mutate-a-list": "{% set xs = [] %}{{ xs.append(1) }}{{ xs }}",
    "range-too-long": "{{ range(10**10)|list|length }}",
    "string-multiplication-bomb": "{{ ('x' * 10**9)|length }}",
    "str-method-bomb": "{{ 'x'.ljust(10**9)|length }}",
    "replace-bomb": "{{ ('x' * 1000)|replace('x', 'x' * 1000)|replace('x', 'x' * 1000) }}",
    "concat-doubling-macro": "{% macro f(s) %}{{ f(s ~ s) }}{% endmacro %}{{ f('x') }}",
    "nested-loops": (
        "{% for a in range(100000) %}{% for b in range(20) %}{% endfor %}{% endfor %}"
    ),
    "power-bomb": "{{ (9 ** 9999999) % 10 }}",
}

# Where each field's error is reported (after the file name and position).
FIELDS: dict[str, str] = {
    "query": "test_cases[0].query",
    "messages": "test_cases[0].messages[0].content",
    "system": "test_cases[0].system",
    "prompt": "test_cases[0]",
    "expected_behavior": "test_cases[0].expected_behavior",
    "check_value": "test_cases[0].checks[0].value",
    "context": "test_cases[0].context",
    "judge_prompt": "judge.prompt",
    "judge_rubric": "test_cases[0].judge.criteria.tone",
    "csv_cell": "query",
    "jsonl_cell": "query",
}


def write_suite(folder: Path, field: str, template: str) -> tuple[Path, Path]:
    """A suite with `template` in `field`; returns the suite and the file the error is in."""
    suite: dict[str, Any] = {}
    case: dict[str, Any] = {"id": "a", "query": "Say hello."}
    if field == "messages":
        del case["query"]
        case["messages"] = [{"role": "user", "content": template}]
    elif field == "prompt":
        del case["query"]
        suite["prompt"] = template
    elif field == "check_value":
        case["checks"] = [{"type": "contains", "value": template}]
    elif field == "judge_prompt":
        suite["judge"] = {"prompt": template}
    elif field == "judge_rubric":
        case["judge"] = {"criteria": {"tone": {"rubric": template}}}
    elif field in ("query", "system", "expected_behavior", "context"):
        case[field] = template
    path = folder / "suite.yaml"
    where = path
    if field == "csv_cell":
        where = folder / "rows.csv"
        with where.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([["id", "query"], ["a", template]])
        suite["cases_from"] = "rows.csv"
    elif field == "jsonl_cell":
        where = folder / "rows.jsonl"
        where.write_text(json.dumps({"id": "a", "query": template}) + "\n", encoding="utf-8")
        suite["cases_from"] = "rows.jsonl"
    else:
        suite["test_cases"] = [case]
    path.write_text(yaml.safe_dump(suite, sort_keys=False, width=10_000), encoding="utf-8")
    return path, where


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(SECRET_NAME, SECRET)
    return SECRET


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_is_refused_at_load(
    tmp_path: Path, secret: str, monkeypatch: pytest.MonkeyPatch, payload: str, field: str
) -> None:
    marker = tmp_path / "marker"
    monkeypatch.chdir(tmp_path)
    path, where = write_suite(tmp_path, field, PAYLOADS[payload].replace("MARKER", str(marker)))

    result = CliRunner().invoke(main, ["validate", str(path)])

    assert not marker.exists(), "the payload ran a shell command"
    assert secret not in result.output
    assert secret not in repr(result.exception)
    assert "Traceback" not in result.output
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if "templates cannot" in line]
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"{where}:")
    assert f": {FIELDS[field]}: templates cannot " in lines[0]


def test_vars_are_data_not_templates(tmp_path: Path, secret: str) -> None:
    marker = tmp_path / "marker"
    payload = PAYLOADS["lipsum-globals-os"].replace("MARKER", str(marker))
    path = tmp_path / "suite.yaml"
    path.write_text(
        yaml.safe_dump({"vars": {"v": payload}, "test_cases": [{"id": "a", "query": "{{ v }}"}]})
    )
    (case,) = load_suite(path).cases
    assert case.messages[0].content == payload  # the text of the var, not its evaluation
    assert not marker.exists()


PLAIN = """\
vars:
  name: "  Ada  "
  items: [tea, milk]
  rows: [{n: 2, city: Rome}, {n: 1, city: Paris}]
  price: 3.14159
test_cases:
  - id: features
    system: "You are {{ name|trim|upper }}'s helper."
    query: >-
      {{ name|trim|lower }} {{ missing|default('none') }} {{ items|join(', ') }}
      {{ items|length }} {{ items|tojson }}
      {% for item in items %}{{ loop.index }}:{{ item }}{{ ',' if not loop.last }}{% endfor %}
      {% if items|length > 1 %}many{% else %}one{% endif %}
      {{ rows|sort(attribute='n')|map(attribute='city')|join('/') }}
      {{ name.strip().split('d')|first }} {{ price|round(2) }} {{ range(3)|list }}
      {{ 'ab' * 2 }} {{ 2 ** 10 }} {{ 7 % 3 }}
      {% macro tag(x) %}<{{ x }}>{% endmacro %}{{ tag('m') }}
    expected_behavior: "Mentions {{ items|first|title }}"
    checks: [{type: contains, value: "{{ items|last }}"}]
"""


def test_plain_templates_still_work(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(PLAIN, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output

    (case,) = load_suite(path).cases
    assert case.messages[0].content == "You are ADA's helper."
    assert case.messages[1].content == (
        'ada none tea, milk 2 ["tea", "milk"] 1:tea,2:milk many Paris/Rome A 3.14 [0, 1, 2] '
        "abab 1024 1 <m>"
    )
    assert case.grading.expected_behavior == "Mentions Tea"
    assert case.grading.checks[0].value == "milk"


@pytest.mark.parametrize(
    "template",
    [
        "{% if response %}{{ 'x' * 10**9 }}{% endif %}",
        "{% if response %}{{ ''[response] }}{% endif %}",
        "{% if response %}{{ response.format(1) }}{% endif %}",
    ],
)
def test_a_judge_prompt_is_also_sandboxed_when_the_run_renders_it(template: str) -> None:
    # At load a judge prompt renders with empty variables; these branches run only later.
    assert render(template, {"response": ""}) == ""
    with pytest.raises(TemplateError, match=r"^templates cannot "):
        render(template, {"response": "__class__"})


def test_the_size_budget_is_per_rendering() -> None:
    half = "{{ ('x' * 6000000)|length }}"
    assert render(half, {}) == "6000000"
    assert render(half, {}) == "6000000"  # the first rendering's spending is forgotten
    with pytest.raises(TemplateError, match=r"^templates cannot build more than 10,000,000"):
        render("{{ ('x' * 6000000 ~ 'x' * 6000000)|length }}", {})


def test_slow_steps_are_stopped_by_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # Few steps, each scanning a long list: ~100,000 seconds of work without the limit.
    monkeypatch.setattr(_budget, "MAX_TEMPLATE_SECONDS", 0.2)
    loop = "{% for a in range(100000) %}{% if -1 in xs %}{% endif %}{% endfor %}"
    with pytest.raises(TemplateError, match=r"^templates cannot take more than 0\.2 seconds"):
        render(loop, {"xs": list(range(200_000))})


def test_binary_vars_cannot_be_multiplied_into_gigabytes(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "vars: {b: !!binary YQ==}\ntest_cases:\n  - {id: t, query: '{{ b * 4000000000 }}'}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["validate", str(suite)])
    assert result.exit_code == 2
    assert "templates cannot" in result.output


@pytest.mark.parametrize(
    "template",
    [
        # batch builds its pieces lazily: each layer read by the next was unpaid (~1 GB each).
        "{{ ('x' * 9999990) | batch(1) | batch(1) | batch(1) | batch(1) | list | length }}",
        "{{ ('x' * 1500000) | batch(1) | list | length }}",  # a step a piece
        "{{ ('x' * 9999990) | slice(2) | list | length }}",
    ],
)
def test_lazily_built_pieces_are_charged_as_they_are_built(template: str) -> None:
    with pytest.raises(TemplateError, match=r"^templates cannot (build|make) more than"):
        render(template, {})


def test_an_expression_cannot_batch_past_its_budget() -> None:
    expression = compile_expression(
        "((output * 580000) | batch(1) | batch(1) | batch(1) | list | length) > 0", ["output"]
    )
    with pytest.raises(TemplateError, match=r"^templates cannot (build|make) more than"):
        expression.evaluate({"output": "0123456789"})
    assert render("{{ (range(7) | batch(3) | list) }}", {}) == "[[0, 1, 2], [3, 4, 5], [6]]"


@pytest.mark.parametrize("binary", [b"%9000000000d", bytearray(b"%9000000000d")])
def test_binary_vars_cannot_be_formatted_into_gigabytes(binary: bytes | bytearray) -> None:
    # `%` pads bytes as it pads text: `b'%9000000000d' % 1` would build 9 GB.
    with pytest.raises(TemplateError, match=r"^templates cannot format text with `%`"):
        render("{{ b % 1 }}", {"b": binary})


def test_a_binary_var_formatted_with_percent_is_refused_at_load(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(  # base64 of `%9000000000d`
        "vars: {b: !!binary JTkwMDAwMDAwMDBk}\ntest_cases:\n  - {id: t, query: '{{ b % 1 }}'}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["validate", str(suite)])
    assert result.exit_code == 2
    assert "templates cannot format text with `%`" in result.output


@pytest.mark.parametrize(
    "template",
    [
        # Each `+` of `sum` copies the total so far: 90,000 lists ran for 6 minutes.
        "{{ ([[1] * 10] * 2000)|sum(start=[])|length }}",
        "{{ ([(1,) * 10] * 2000)|sum(start=())|length }}",
        "{{ ([{'a': [1] * 10}] * 2000)|sum(attribute='a', start=[])|length }}",
        # textwrap copies the rest of a long word once per line: 3,000,000 ran for 4 minutes.
        "{{ ('x' * 100000)|wordwrap(1)|length }}",
        "{{ ('-' * 100000)|wordwrap(1)|length }}",
        "{{ (' ' * 100000 ~ 'x')|wordwrap(1)|length }}",
        "{{ ('.-' * 100000)|wordwrap(79)|length }}",
        # Every line repeats the indent once per level: ~500,000,000 characters of JSON.
        "{{ ('[' * 300 ~ '0,' * 100000 ~ '0' ~ ']' * 300)|from_json|tojson(16)|length }}",
    ],
)
def test_one_filter_cannot_build_past_the_budget_before_it_is_charged(template: str) -> None:
    with pytest.raises(TemplateError, match=r"^templates cannot build more than 10,000,000"):
        render(template, {})


def test_a_deep_value_indented_as_json_is_stopped_by_the_time_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With no indent the lines are short, but each passes up through one generator per level:
    # a single `tojson` step, which the clock between steps would not stop.
    monkeypatch.setattr(_budget, "MAX_TEMPLATE_SECONDS", 0.05)
    deep: list[Any] = [0] * 20_000
    for _ in range(500):
        deep = [deep]
    with pytest.raises(TemplateError, match=r"^templates cannot take more than 0\.05 seconds"):
        render("{{ deep|tojson(0) }}", {"deep": deep})


def test_filters_charged_as_they_work_give_jinja_s_results() -> None:
    template = (
        "{{ [[1, 2], [3]]|sum(start=[]) }} {{ [(1,), (2,)]|sum(start=()) }} "
        "{{ [{'n': 2}, {'n': 3}]|sum(attribute='n') }} {{ [1, 2.5]|sum }}|"
        "{{ 'a-bcdef ghi'|wordwrap(3) }}|{{ 'abcdefg'|wordwrap(3, wrapstring='/') }}|"
        "{{ {'b': [1], 'a': '<'}|tojson(1) }}"
    )
    assert render(template, {}) == (
        '[1, 2, 3] (1, 2) 5 3.5|a-\nbcd\nef\nghi|abc/def/g|{\n "a": "\\u003c",\n "b": [\n  1\n ]\n}'
    )
