"""Issue 26's everyday checks: starts/ends_with, contains_any/all, levenshtein, rouge, bleu."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from rouge_score.rouge_scorer import RougeScorer  # type: ignore[import-untyped]

from promptum import Completion
from promptum.checks import CheckDefinition, check_plan, evaluate_checks
from promptum.cli import main
from promptum.errors import ConfigError
from promptum.reporting import load_run
from promptum.suites import load_suite, suite_json_schema
from promptum.values.grade import Grade
from tests.support.imports import imported_after
from tests.support.results import statuses

EVERYDAY = (
    "starts_with",
    "ends_with",
    "contains_any",
    "contains_all",
    "levenshtein",
    "rouge",
    "bleu",
)
"""The everyday check types, in the order the docs' example lists them."""


def grade(text: str, **definition: Any) -> Grade:
    """The grade of one check on a response, as the runner gets it."""
    return CheckDefinition(**definition).compiled(Completion(text=text))


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance by the textbook dynamic programme: the reference to check against."""
    row = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, char_b in enumerate(b, 1):
            previous, row[j] = (
                row[j],
                min(row[j] + 1, row[j - 1] + 1, previous + (char_a != char_b)),
            )
    return row[-1]


# --- starts_with / ends_with --------------------------------------------------------------


@pytest.mark.parametrize(
    ("definition", "text", "passed"),
    [
        ({"type": "starts_with", "value": "Ahoy"}, "Ahoy, matey!", True),
        ({"type": "starts_with", "value": "Ahoy"}, "\n  Ahoy, matey!", True),  # leading space
        ({"type": "starts_with", "value": "Ahoy"}, "ahoy, matey!", False),
        ({"type": "starts_with", "value": "Ahoy"}, "Well, Ahoy", False),
        ({"type": "starts_with", "value": "Ahoy"}, "", False),
        ({"type": "starts_with", "value": "AHOY", "case_insensitive": True}, " ahoy!", True),
        ({"type": "starts_with", "value": " x"}, " x marks", True),  # a value that starts blank
        ({"type": "starts_with", "value": "ÉCOLE", "case_insensitive": True}, "école", True),
        ({"type": "starts_with", "value": "STRASSE", "case_insensitive": True}, "Straße 5", True),
        ({"type": "ends_with", "value": "aboard."}, "Welcome aboard.", True),
        ({"type": "ends_with", "value": "aboard."}, "Welcome aboard.\n\n", True),  # trailing
        ({"type": "ends_with", "value": "aboard."}, "Welcome aboard!", False),
        ({"type": "ends_with", "value": "Aboard.", "case_insensitive": True}, "ABOARD.", True),
        ({"type": "ends_with", "value": "Aboard."}, "ABOARD.", False),
        ({"type": "ends_with", "value": "🙂"}, "Bye 🙂", True),
    ],
)
def test_affixes(definition: dict[str, Any], text: str, passed: bool) -> None:
    result = grade(text, **definition)
    assert result.name == definition["type"]
    assert result.passed is passed
    assert (result.reason is None) is passed


def test_affix_failures_quote_the_right_end_of_the_response() -> None:
    start = grade("Hello there, sailor, and welcome", type="starts_with", value="Ahoy")
    assert start.reason == "expected to start with 'Ahoy', got 'Hello there, sailor, and welcome'"
    assert start.description == "Starts with 'Ahoy'"
    long = "word " * 40 + "the very end"
    end = grade(long, type="ends_with", value="fin.")
    assert end.reason is not None
    assert end.reason.startswith("expected to end with 'fin.', got '…")
    assert end.reason.endswith("the very end'")  # the end is what it is about
    folded = grade("x", type="ends_with", value="Y", case_insensitive=True)
    assert folded.description == "Ends with 'Y' (ignoring case)"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30), st.text(min_size=1, max_size=4), st.booleans())
def test_affixes_agree_with_python(text: str, value: str, folded: bool) -> None:
    start = grade(text, type="starts_with", value=value, case_insensitive=folded)
    end = grade(text, type="ends_with", value=value, case_insensitive=folded)

    def fold(s: str) -> str:
        return s.casefold() if folded else s

    expected_start = fold(text).startswith(fold(value)) or fold(text.lstrip()).startswith(
        fold(value)
    )
    expected_end = fold(text).endswith(fold(value)) or fold(text.rstrip()).endswith(fold(value))
    assert start.passed is expected_start
    assert end.passed is expected_end


# --- contains_any / contains_all ------------------------------------------------------------


@pytest.mark.parametrize(
    ("definition", "text", "passed"),
    [
        ({"type": "contains_any", "value": ["Paris", "Lyon"]}, "I live in Lyon.", True),
        ({"type": "contains_any", "value": ["Paris", "Lyon"]}, "I live in lyon.", False),
        ({"type": "contains_any", "value": ["Paris"]}, "Paris", True),
        (
            {"type": "contains_any", "value": ["PARIS", "x"], "case_insensitive": True},
            "paris",
            True,
        ),
        ({"type": "contains_any", "value": ["東京", "大阪"]}, "首都は東京です", True),
        ({"type": "contains_any", "value": ["a", "b"]}, "", False),
        ({"type": "contains_all", "value": ["Paris", "France"]}, "Paris, France", True),
        ({"type": "contains_all", "value": ["Paris", "France"]}, "Paris, Texas", False),
        (
            {"type": "contains_all", "value": ["paris", "FRANCE"], "case_insensitive": True},
            "Paris, France",
            True,
        ),
        (
            {"type": "contains_all", "value": ["STRASSE", "köln"], "case_insensitive": True},
            "Kölner Straße",
            True,
        ),
        ({"type": "contains_all", "value": ["a", "a"]}, "a", True),  # repeats count once
    ],
)
def test_contains_lists(definition: dict[str, Any], text: str, passed: bool) -> None:
    result = grade(text, **definition)
    assert result.passed is passed
    assert (result.reason is None) is passed


def test_contains_list_failures_name_what_is_missing() -> None:
    any_of = grade("I live in Rome.", type="contains_any", value=["Paris", "Lyon"])
    assert any_of.reason == "expected to contain any of 'Paris', 'Lyon', got 'I live in Rome.'"
    all_of = grade("Paris, Texas", type="contains_all", value=["Paris", "France", "Europe"])
    assert all_of.reason == "missing 'France', 'Europe' (of 3), got 'Paris, Texas'"
    folded = grade(
        "PARIS", type="contains_all", value=["paris", "Lyon"], case_insensitive=True
    ).reason
    assert folded == "missing 'Lyon' (of 2), got 'PARIS'"


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="abcAB ", max_size=12),
    st.lists(st.text(alphabet="abAB", min_size=1, max_size=3), min_size=1, max_size=4),
    st.booleans(),
)
def test_contains_lists_agree_with_python(text: str, values: list[str], folded: bool) -> None:
    def fold(s: str) -> str:
        return s.casefold() if folded else s

    any_of = grade(text, type="contains_any", value=values, case_insensitive=folded)
    all_of = grade(text, type="contains_all", value=values, case_insensitive=folded)
    assert any_of.passed is any(fold(v) in fold(text) for v in values)
    assert all_of.passed is all(fold(v) in fold(text) for v in values)


# --- levenshtein ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text", "passed"),
    [
        ("Paris", "Paris", True),
        ("Paris", "  Paris\n", True),  # trimmed, like exact_match
        ({"expected": "Paris", "max_distance": 1}, "Pariss", True),
        ({"expected": "Paris", "max_distance": 1}, "Parisss", False),
        ({"expected": "Paris", "max_distance": 0}, "paris", False),
        ("Paris", "Paris is lovely", False),  # distance 10 > 5, promptfoo's default
        ("Paris", "Paris!!!!!", True),  # distance 5
        ({"expected": "café", "max_distance": 1}, "cafe", True),  # one character, not a byte
        ({"expected": "", "max_distance": 3}, "abc", True),
    ],
)
def test_levenshtein(value: Any, text: str, passed: bool) -> None:
    assert grade(text, type="levenshtein", value=value).passed is passed


def test_levenshtein_reason_gives_the_whole_distance() -> None:
    # The test in line stops counting past the limit; the reason counts all of it.
    result = grade("Copenhagen", type="levenshtein", value={"expected": "Paris", "max_distance": 2})
    assert edit_distance("Copenhagen", "Paris") == 9
    assert result.reason == "distance 9 > 2 from 'Paris', got 'Copenhagen'"
    assert result.description == "Within edit distance 2 of 'Paris' (after trimming whitespace)"


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="abcé ", max_size=10), st.text(alphabet="abcé", max_size=8), st.integers(0, 4)
)
def test_levenshtein_agrees_with_the_textbook_distance(
    text: str, expected: str, limit: int
) -> None:
    result = grade(text, type="levenshtein", value={"expected": expected, "max_distance": limit})
    assert result.passed is (edit_distance(text.strip(), expected) <= limit)


# --- rouge / bleu ---------------------------------------------------------------------------


def test_rouge_scores_and_thresholds() -> None:
    reference = "The cat sat on the mat."
    same = grade("the cat sat on the mat", type="rouge", value=reference)
    assert (same.passed, same.score, same.reason) == (True, 1.0, "rouge1 1.000 ≥ 0.75")
    other = grade("Dogs bark loudly.", type="rouge", value=reference)
    assert (other.passed, other.score, other.reason) == (False, 0.0, "rouge1 0.000 < 0.75")
    # 4 of 6 words shared (the, cat, on, mat ... "the" twice): P = R = 4/6.
    partial = grade("The cat lay on a mat.", type="rouge", value=reference)
    assert partial.score == round(4 / 6, 3)
    assert partial.passed is False
    lowered = grade("The cat lay on a mat.", type="rouge", value=reference, threshold=0.6)
    assert lowered.passed is True
    assert lowered.description == "rouge1 F1 ≥ 0.6 against 'The cat sat on the mat.'"


def test_rouge_variants_differ_as_they_should() -> None:
    reference = "police killed the gunman"
    text = "the gunman killed police"  # every word shared, in another order
    scores = {
        variant: grade(text, type="rouge", value={"reference": reference, "variant": variant})
        for variant in ("rouge1", "rouge2", "rougeL")
    }
    assert scores["rouge1"].score == 1.0
    assert scores["rouge2"].score == round(1 / 3, 3)  # only "the gunman" in both
    assert scores["rougeL"].score == 0.5  # longest common subsequence: 2 of 4
    assert scores["rougeL"].reason == "rougeL 0.500 < 0.75"


def test_rouge_keeps_every_script() -> None:
    # rouge-score's own tokenizer keeps a-z only: "Zürich" would be "z rich".
    assert grade("Zürich ist schön", type="rouge", value="zürich IST schön").score == 1.0
    assert grade("Zürich", type="rouge", value="Zurich").score == 0.0
    # Chinese and Japanese, which do not separate words, count character by character.
    assert grade("东京是日本的首都", type="rouge", value="东京是日本的首都").score == 1.0
    half = grade("东京很大", type="rouge", value="东京是日本的首都")
    assert half.score == round(2 * (2 / 4) * (2 / 8) / ((2 / 4) + (2 / 8)), 3)


def test_bleu_scores_against_one_or_several_references() -> None:
    exact = grade("The cat sat on the mat.", type="bleu", value="The cat sat on the mat.")
    assert (exact.passed, exact.score, exact.reason) == (True, 1.0, "BLEU 1.000 ≥ 0.5")
    assert grade("THE CAT SAT ON THE MAT.", type="bleu", value="the cat sat on the mat.").passed
    unrelated = grade("Dogs bark loudly", type="bleu", value="The cat sat on the mat.")
    assert (unrelated.passed, unrelated.score) == (False, 0.0)
    assert unrelated.reason == "BLEU 0.000 < 0.5"
    # The best-matching reference counts: a second reference makes the same answer pass.
    text = "A cat was sitting on the mat."
    one = grade(text, type="bleu", value=["The cat sat on the mat."])
    two = grade(text, type="bleu", value=["The cat sat on the mat.", "A cat was sitting on a mat."])
    assert one.score is not None
    assert two.score is not None
    assert one.score < 0.5 <= two.score
    assert two.passed
    assert not one.passed
    chinese = grade("东京是日本的首都", type="bleu", value="东京是日本的首都")
    assert chinese.score == 1.0
    assert grade("", type="bleu", value="The cat").score == 0.0


def test_scored_checks_put_their_score_in_the_grade_and_the_check_result() -> None:
    definitions = [
        CheckDefinition(type="rouge", value="a b c d"),
        CheckDefinition(type="bleu", value="a b c d"),
    ]
    results = evaluate_checks(definitions, Completion(text="a b c d"))
    assert [r.passed for r in results] == [True, True]
    grades = [d.compiled(Completion(text="x y")) for d in definitions]
    assert [(g.passed, g.score, g.error) for g in grades] == [(False, 0.0, None)] * 2


# --- how they run ---------------------------------------------------------------------------


def test_the_string_checks_are_tested_in_line_and_agree_with_their_own_calls() -> None:
    definitions = (
        CheckDefinition(type="starts_with", value="Ahoy"),
        CheckDefinition(type="ends_with", value="!", case_insensitive=True),
        CheckDefinition(type="contains_any", value=["matey", "sailor"]),
        CheckDefinition(type="contains_all", value=["Ahoy", "PARROT"], case_insensitive=True),
        CheckDefinition(type="levenshtein", value={"expected": "Ahoy, matey!", "max_distance": 3}),
    )
    plan = check_plan(definitions)
    assert plan.bound_s == 0  # no call per check: tested in the plan's one function
    for text in ("Ahoy, matey!", "Ahoy, parrot!", "nothing", "", "  ahoy matey"):
        completion = Completion(text=text)
        assert plan.run(completion) == [d.compiled(completion) for d in definitions]
    with_rouge = check_plan((*definitions, CheckDefinition(type="rouge", value="Ahoy")))
    assert with_rouge.bound_s is None  # a library's scorer is a call of its own


def test_a_case_of_them_runs_end_to_end_on_fixed_answers(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "ANSWERS = {'greet': '  Ahoy, matey! Welcome aboard.\\n', 'capital': 'Pariss',\n"
        "           'summary': 'The cat sat on the mat.'}\n"
        "def answer(query, vars):\n    return ANSWERS[vars['case']]\n"
    )
    (tmp_path / "suite.yaml").write_text(
        textwrap.dedent(
            """\
            name: everyday
            target: app.py:answer
            test_cases:
              - id: greet
                vars: {case: greet, opening: ahoy}
                query: greet
                checks:
                  - {type: starts_with, value: "{{ opening }}", case_insensitive: true}
                  - {type: ends_with, value: "aboard."}
                  - {type: contains_any, value: [matey, sailor]}
                  - {type: contains_all, value: [Ahoy, Welcome]}
              - id: capital
                vars: {case: capital, city: Paris}
                query: capital
                checks:
                  - {type: levenshtein, value: {expected: "{{ city }}", max_distance: 1}}
              - id: capital-strict
                vars: {case: capital}
                query: capital
                checks:
                  - {type: levenshtein, value: {expected: London, max_distance: 2}}
              - id: summary
                vars: {case: summary}
                query: summary
                checks:
                  - type: rouge
                    value: {reference: "A cat was sitting on the mat.", variant: rougeL}
                  - {type: bleu, value: ["The cat sat on the mat."], threshold: 0.9}
            """
        )
    )
    done = CliRunner().invoke(
        main, ["run", str(tmp_path / "suite.yaml"), "-o", str(tmp_path / "run.json"), "--no-store"]
    )
    assert done.exit_code == 1, done.output
    assert "levenshtein: distance 6 > 2 from 'London', got 'Pariss'" in done.output
    assert "rouge: rougeL 0.615 < 0.75" in done.output
    run = load_run(tmp_path / "run.json")
    assert statuses(run) == {
        "greet": "pass",
        "capital": "pass",
        "capital-strict": "fail",
        "summary": "fail",
    }
    summary = next(r for r in run.results if r.case_id == "summary")
    assert [(g.name, g.passed, g.score) for g in summary.grades] == [
        ("rouge", False, 0.615),
        ("bleu", True, 1.0),
    ]
    raw = json.loads((tmp_path / "run.json").read_text())
    scores = [g["score"] for r in raw["results"] for g in r["grades"] if g["name"] == "rouge"]
    assert scores == [0.615]  # in the report too


# --- bad values are located load errors -----------------------------------------------------

BAD = """\
test_cases:
  - id: a
    query: q
    checks:
      - type: contains_any
        value: []
      - type: contains_all
        value: [Paris, 3]
      - type: levenshtein
        value: {expected: Paris, max_distance: -1}
      - type: levenshtein
        value: {expected: Paris, max_distanse: 2}
      - type: rouge
        value: {reference: Paris, variant: ROUGE-L}
      - type: starts_with
        value: ""
      - type: bleu
        value: [Paris, "  "]
      - type: rouge
        value: Paris
        case_insensitive: true
      - type: levenshtein
        value: {expected: Paris, max_distance: 1.5}
      - type: contains_any
      - type: ends_with
        value: 3
      - type: contains_any
        value: "Paris, Lyon"
      - type: rouge
        value: {reference: "   "}
      - type: levenshtein
        value: {max_distance: 2}
      - type: bleu
        value: Paris
        model: openai/gpt-4o
"""

EXPECTED = [
    ("5:9", "check 'contains_any' needs at least one string in its list"),
    ("7:9", "check 'contains_all': item 1 is int 3, not a string; quote it in YAML"),
    ("9:9", "check 'levenshtein': max_distance must be a whole number of edits, 0 or more, got -1"),
    ("11:9", "unknown key 'max_distanse'. Did you mean 'max_distance'?"),
    ("13:9", "check 'rouge': unknown variant 'ROUGE-L'. Did you mean 'rougeL'?"),
    ("15:9", "check 'starts_with' needs a non-empty string"),
    ("17:9", "check 'bleu': reference 1 of its list is blank"),
    ("19:9", "check 'rouge': case_insensitive applies only to string checks ("),
    ("22:9", "max_distance must be a whole number of edits, 0 or more, got 1.5"),
    (
        "24:9",
        "check 'contains_any' needs a `value`: a list of strings, e.g. `value: [Paris, Lyon]`",
    ),
    ("25:9", "check 'ends_with' needs a string value, got int 3"),
    ("27:9", "check 'contains_any' needs a list of strings, got str 'Paris, Lyon'"),
    ("29:9", "check 'rouge' needs a reference text to compare with, not blank"),
    ("31:9", "check 'levenshtein' needs `expected`, the text to compare with"),
    ("33:9", "check 'bleu': it takes no model"),
]


def test_bad_values_are_located_load_errors(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BAD)
    with pytest.raises(ConfigError) as raised:
        load_suite(path)
    found = str(raised.value).splitlines()[1:]
    assert len(found) == len(EXPECTED), found
    for index, (line, (where, text)) in enumerate(zip(found, EXPECTED, strict=True)):
        assert line.startswith(f"{path}:{where}: test_cases[0].checks[{index}]: "), line
        assert text in line, line
    listed = found[7]
    assert "starts_with, ends_with, contains_any, contains_all" in listed


def test_promptum_validate_reports_them_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(BAD)
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "validate", "suite.yaml"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    output = done.stdout + done.stderr
    assert "Traceback" not in output
    assert f"{len(EXPECTED)} problems found" in output
    assert "suite.yaml:13:9: test_cases[0].checks[4]: check 'rouge': unknown variant" in output


def test_a_template_value_is_checked_again_once_filled_in(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "test_cases:\n  - id: a\n    query: q\n    vars: {opening: ''}\n    checks:\n"
        "      - {type: starts_with, value: '{{ opening }}'}\n"
    )
    with pytest.raises(ConfigError) as raised:
        load_suite(path)
    assert "check 'starts_with' needs a non-empty string (after filling in the template)" in str(
        raised.value
    )


def test_python_api_raises_the_same_messages() -> None:
    with pytest.raises(ValidationError, match=r"unknown variant 'rogue2'\. Did you mean 'rouge2'"):
        CheckDefinition(type="rouge", value={"reference": "x", "variant": "rogue2"})
    with pytest.raises(ValidationError, match="threshold"):
        CheckDefinition(type="bleu", value="x", threshold=2)


def test_without_the_text_metrics_extra_rouge_and_bleu_say_how_to_get_it(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        "test_cases:\n  - id: a\n    query: q\n    checks:\n"
        "      - {type: rouge, value: Paris}\n      - {type: bleu, value: Paris}\n"
        "      - {type: levenshtein, value: Paris}\n"
    )
    # A None in sys.modules makes the import fail as a missing package's would.
    code = (
        "import sys\nsys.modules['rouge_score'] = sys.modules['sacrebleu'] = None\n"
        "from promptum.cli import main\nmain(['validate', 'suite.yaml'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    hint = "in the text-metrics extra: pip install 'promptum[text-metrics]'"
    where = "suite.yaml:{}:9: test_cases[0].checks[{}]: check {!r} needs the {} package, "
    assert where.format(5, 0, "rouge", "rouge-score") + hint in output
    assert where.format(6, 1, "bleu", "sacrebleu") + hint in output
    assert "2 problems found" in output  # levenshtein needs no extra


LIBRARIES = ("rapidfuzz", "rouge_score", "sacrebleu", "nltk")


def test_the_libraries_are_imported_only_by_a_suite_that_uses_them(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("test_cases:\n  - {id: a, query: q, checks: [{type: contains, value: x}]}\n")
    scored = tmp_path / "scored.yaml"
    scored.write_text(
        "test_cases:\n  - id: a\n    query: q\n    checks:\n"
        "      - {type: rouge, value: x}\n      - {type: levenshtein, value: x}\n"
    )
    load = "from promptum.suites import load_suite\nload_suite({!r})"
    cli = "from promptum.cli import main\nimport promptum.checks"
    assert imported_after(cli, LIBRARIES)[0] == []
    assert imported_after(load.format(str(plain)), LIBRARIES)[0] == []
    assert set(imported_after(load.format(str(scored)), LIBRARIES)[0]) == {
        "rapidfuzz",
        "rouge_score",
        "nltk",
    }


def test_the_suite_schema_lists_and_describes_them() -> None:
    check = suite_json_schema()["$defs"]["CheckDefinition"]
    assert set(EVERYDAY) <= set(check["properties"]["type"]["enum"])
    for name in EVERYDAY:
        assert f"{name}: " in check["description"]


# --- on a real model ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.embedded_model
def test_on_the_embedded_model_each_grade_matches_the_answer(tmp_path: Path) -> None:
    """Whatever SmolLM2 says, each check's verdict must be the one its definition gives."""
    (tmp_path / "suite.yaml").write_text(
        textwrap.dedent(
            """\
            name: everyday-local
            models: [local/smollm2]
            test_cases:
              - id: capital
                query: "What is the capital of France? Answer in one short sentence."
                checks:
                  - {type: starts_with, value: "The", case_insensitive: true}
                  - {type: ends_with, value: "."}
                  - {type: contains_any, value: [Paris, paris, France]}
                  - {type: contains_all, value: [Paris, France], case_insensitive: true}
                  - type: levenshtein
                    value: {expected: "The capital of France is Paris.", max_distance: 10}
                  - type: rouge
                    value: {reference: "The capital of France is Paris.", variant: rougeL}
                    threshold: 0.5
                  - type: bleu
                    value: ["The capital of France is Paris.", "Paris is the capital of France."]
                    threshold: 0.3
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "promptum", "run", "suite.yaml", "-o", "run.json", "--no-store"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    run = load_run(tmp_path / "run.json")
    (result,) = run.results
    assert result.status in ("pass", "fail")
    text = result.completion.text
    assert text.strip()
    reference = "The capital of France is Paris."
    folded = text.casefold()
    expected = {
        "starts_with": text.lstrip().casefold().startswith("the"),
        "ends_with": text.rstrip().endswith("."),
        "contains_any": any(word in text for word in ("Paris", "paris", "France")),
        "contains_all": "paris" in folded and "france" in folded,
        "levenshtein": edit_distance(text.strip(), reference) <= 10,
    }
    graded = {g.name: g for g in result.grades}
    assert {name: graded[name].passed for name in expected} == expected
    rouge = RougeScorer(["rougeL"]).score(reference, text)["rougeL"].fmeasure
    assert graded["rouge"].score == pytest.approx(rouge, abs=0.002)  # ASCII answer: same words
    assert graded["rouge"].passed is (graded["rouge"].score >= 0.5)
    assert graded["bleu"].score is not None
    assert 0 <= graded["bleu"].score <= 1
    assert graded["bleu"].passed is (graded["bleu"].score >= 0.3)


def test_the_example_in_the_docs_loads_and_grades(tmp_path: Path) -> None:
    docs = (Path(__file__).parents[2] / "docs" / "checks.md").read_text(encoding="utf-8")
    section = docs.split("## Everyday text checks", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    indented = textwrap.indent(block, "    ")
    path = tmp_path / "suite.yaml"
    path.write_text(f"test_cases:\n  - id: docs\n    query: q\n{indented}")
    (case,) = load_suite(path).cases
    assert tuple(c.type for c in case.grading.checks) == EVERYDAY
    text = "Ahoy! The cat sat on the mat in Paris, France. Refund?"
    passed = [c.compiled(Completion(text=text)).passed for c in case.grading.checks]
    assert passed == [True, True, True, True, False, True, False]  # rougeL: P 6/12, R 6/6


def test_they_can_be_sent_to_ray_workers() -> None:
    """A case goes to a Ray worker pickled (cloudpickle): each check must arrive and grade."""
    cloudpickle = pytest.importorskip("cloudpickle")  # Ray's: the ray extra

    definitions = [
        CheckDefinition(type="starts_with", value="Ahoy"),
        CheckDefinition(type="ends_with", value="!", case_insensitive=True),
        CheckDefinition(type="contains_any", value=["matey", "sailor"]),
        CheckDefinition(type="contains_all", value=["AHOY", "parrot"], case_insensitive=True),
        CheckDefinition(type="levenshtein", value={"expected": "Ahoy, matey!", "max_distance": 1}),
        CheckDefinition(type="rouge", value={"reference": "Ahoy matey", "variant": "rouge2"}),
        CheckDefinition(type="bleu", value=["Ahoy, matey!"]),
    ]
    code = (
        "import pickle, sys\nfrom promptum import Completion\n"
        "checks = pickle.loads(sys.stdin.buffer.read())\n"
        "print([(c.compiled(Completion(text='Ahoy, matey!')).passed) for c in checks])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=cloudpickle.dumps(definitions), capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "[True, True, True, False, True, True, True]"


def test_a_rouge_check_leaves_absl_logging_on_the_process_stderr() -> None:
    # absl (imported by rouge-score) keeps the stderr of its import and closes it when
    # logging is set up again: under pytest that was the capture, and the run lost stderr.
    import absl.logging

    CheckDefinition(type="rouge", value="the cat sat")
    assert absl.logging.get_absl_handler().python_handler.stream is sys.__stderr__
