"""`expr` checks: a sandboxed Jinja expression over one response, true/false or a 0-1 score.

Loading refuses what cannot run (a syntax error, an unknown variable, filter or test, a
`vars.x` the case does not define), located with a did-you-mean; at run time a value that
is neither a bool nor a 0-1 number, or a failing expression, is an error grade naming it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from promptum.checks import CheckDefinition, check_grades
from promptum.cli import main
from promptum.suites import load_suite
from promptum.templating import TemplateError, compile_expression
from promptum.values.completion import Completion, ToolCall
from promptum.values.grade import Grade
from tests.support.cli import write

ANSWER = Completion(
    text='  {"status": "ok", "items": [1, 2, 3]}  ',
    latency_ms=120.0,
    input_tokens=11,
    output_tokens=9,
    cost_usd=0.002,
    tool_calls=(ToolCall(name="lookup", arguments={"city": "Rome"}),),
)


def grade(completion: Completion = ANSWER, **definition: object) -> Grade:
    (only,) = check_grades([CheckDefinition.model_validate(definition)], completion)
    return only


@pytest.mark.parametrize(
    "expression",
    [
        "output | length < 500",
        "json.status == 'ok'",
        "json['items'] | sum == 6",
        "(output | trim | from_json).status == 'ok'",
        "output | trim is startswith('{')",
        "output | trim is endswith(['x', '}'])",
        "output.strip().startswith('{\"status\"')",
        "'ok' in output and 'error' not in output | lower",
        "output | word_count == 6",
        "tool_calls | length == 1 and tool_calls[0].name == 'lookup'",
        "tool_calls[0].arguments.city == 'Rome'",
        "latency_ms < 1000 and cost_usd < 0.01",
        "tokens.input == 11 and tokens.output == 9 and tokens.total == 20",
        "[1, json['items'] | length] | max == 3",
    ],
)
def test_true_expressions_pass(expression: str) -> None:
    result = grade(type="expr", value=expression)
    assert (result.kind, result.name, result.passed, result.error) == ("check", "expr", True, None)


@pytest.mark.parametrize(
    "expression", ["output | length > 500", "json.status == 'error'", "'x' is startswith('y')"]
)
def test_false_expressions_fail_and_say_which(expression: str) -> None:
    result = grade(type="expr", value=expression)
    assert result.failed
    assert result.reason == f"`{expression}` was false"
    assert expression in result.description


def test_a_number_is_a_score_against_the_threshold() -> None:
    low = grade(type="expr", value="json['items'] | length / 10")
    assert (low.passed, low.score, low.reason) == (False, pytest.approx(0.3), "score 0.3 < 0.5")
    high = grade(type="expr", value="json['items'] | length / 10", threshold=0.25)
    assert (high.passed, high.score, high.details["threshold"]) == (True, pytest.approx(0.3), 0.25)
    assert grade(type="expr", value="1").passed  # an int in 0-1 is a score too


@pytest.mark.parametrize(
    ("expression", "shown"),
    [
        ("output | length", "gave int 40"),
        ("1.5", "gave float 1.5"),
        ("-0.1", "gave float -0.1"),
        ("output | trim", "gave str"),
        ("json", "gave dict"),
        ("none", "gave NoneType None"),
    ],
)
def test_anything_else_is_an_error_grade_naming_the_expression(expression: str, shown: str) -> None:
    result = grade(type="expr", value=expression)
    assert not result.passed
    assert result.error is not None
    assert result.error.startswith(f"expr `{expression}` {shown}")
    assert "true/false or a score from 0 to 1" in result.error


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("json.missing == 1", "json is none, which has no field 'missing'"),
        ("vars.topic == 'x'", "vars has no field 'topic' (it has no fields)"),
        ("(output | from_json).a", "from_json: Expecting value"),
        ("output / 2 > 1", "TypeError"),
    ],
)
def test_an_expression_that_fails_on_a_response_is_an_error_grade(
    expression: str, problem: str
) -> None:
    result = grade(Completion(text="not json"), type="expr", value=expression)
    assert not result.passed
    assert result.error is not None
    assert result.error.startswith(f"expr `{expression}` failed: ")
    assert problem in result.error


def test_json_is_the_parsed_answer_fenced_or_not_else_the_structured_output() -> None:
    fenced = Completion(text='```json\n{"a": 1}\n```')
    assert grade(fenced, type="expr", value="json.a == 1").passed
    structured = Completion(text="whatever", output={"a": 2})
    assert grade(structured, type="expr", value="json.a == 2").passed
    assert grade(Completion(text="plain"), type="expr", value="json is none").passed


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("output |", "check 'expr': expression syntax error: unexpected end of template"),
        ("outptu | length < 5", "unknown variable 'outptu'. Did you mean 'output'?"),
        ("output | lenght < 5", "unknown filter 'lenght'. Did you mean 'length'?"),
        ("output is startwith('a')", "unknown test 'startwith'. Did you mean 'startswith'?"),
        ("lipsum", "unknown variable 'lipsum'. An expression sees answer, cost_usd, json"),
        ("output 1", "unexpected 1 after the expression"),
        ("output.length < 5 && x", "in Jinja: `&&` → `and`, `.length` → `| length`"),
        ("", "an expression is needed"),
        ("output == '{{ answer }}'", "reads the case's variables as `vars.name`"),
        ("output | trim {# a comment #}", "template tags (`{{ }}`, `{% %}`) are not filled in"),
    ],
)
def test_an_expression_that_cannot_run_is_refused_when_defined(value: str, message: str) -> None:
    with pytest.raises(ValidationError) as raised:
        CheckDefinition.model_validate({"type": "expr", "value": value})
    assert message in str(raised.value)


def test_an_expression_takes_no_model() -> None:
    with pytest.raises(ValidationError, match="check 'expr': it takes no model"):
        CheckDefinition.model_validate({"type": "expr", "value": "true", "model": "x/y"})


def test_each_distinct_expression_is_compiled_once() -> None:
    names = ("output",)
    first = compile_expression("output | length > 3 and 'a' in output", names)
    assert compile_expression("output | length > 3 and 'a' in output", names) is first
    assert first.vars_read == frozenset()
    read = compile_expression("vars.topic ~ vars['tone']", ("vars",))
    assert read.vars_read == {"topic", "tone"}
    probed = compile_expression("vars.a | default(1) ~ (vars.b is defined) ~ vars.c", ("vars",))
    assert probed.vars_read == {"c"}  # only probed, `a` and `b` may be missing
    with pytest.raises(TemplateError):
        compile_expression("output", ())


def test_load_errors_are_located_with_a_did_you_mean(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        vars: {topic: cats}
        test_cases:
          - id: a
            query: Tell me about {{ topic }}
            checks:
              - {type: expr, value: "vars.topic == 'cats'"}
              - {type: expr, value: "output | lenght < 500"}
          - id: b
            query: hi
            checks:
              - {type: expr, value: "vars.topc in output"}
        """,
    )
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert (
        f"{path}:7:9: test_cases[0].checks[1]: check 'expr': unknown filter 'lenght'. "
        "Did you mean 'length'?"
    ) in result.output
    assert (
        f"{path}:11:22: test_cases[1].checks[0].value: `vars.topc` is not defined for this case. "
        "Did you mean 'vars.topic'? Define it under `vars` (defined here: topic)"
    ) in result.output


def test_a_case_with_its_vars_loads(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - id: a
            query: Tell me about {{ topic }}
            vars: {topic: cats}
            checks:
              - {type: expr, value: "vars.topic in output | lower"}
        """,
    )
    (case,) = load_suite(path).cases
    (check,) = case.grading.checks
    assert check.type == "expr"
    assert check.value == "vars.topic in output | lower"


def test_identical_expressions_in_many_cases_are_one_check(tmp_path: Path) -> None:
    rows = "\n".join(
        f'  - {{id: c{i}, query: q, checks: [{{type: expr, value: "output | length < 9"}}]}}'
        for i in range(5)
    )
    path = write(tmp_path / "suite.yaml", "test_cases:\n" + rows + "\n")
    cases = load_suite(path).cases
    assert len({id(case.grading.checks[0]) for case in cases}) == 1


def test_the_promptfoo_table_of_docs_expressions_holds() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "expressions.md").read_text(encoding="utf-8")
    table = doc.split("### From promptfoo's JavaScript", 1)[1].split("\n\n", 2)[1]
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    expressions = [
        row[1].split("`")[1].replace("\\|", "|") for row in rows if "`a and b`" not in row[1]
    ]
    assert len(expressions) == 7
    answer = Completion(text='{"status": "ok", "note": "Ahoy, yes: Paris"}')
    outcomes = {}
    for expression in expressions:
        result = grade(answer, type="expr", value=expression)
        assert result.error is None, (expression, result.error)  # a bool or a score
        outcomes[expression] = result.passed
    assert outcomes == {
        "output | length < 500": True,
        "'Paris' in output": True,
        "'yes' in output | lower": True,
        "output is startswith('Ahoy')": False,
        "(output | from_json).status == 'ok'": True,
        "output | word_count <= 50": True,
        "[1, (output | length) / 100] | min": False,  # a score of 0.44, under 0.5
    }
