"""A pattern from a suite cannot hang a run: slow searches become failed checks, Ctrl-C works.

Python's `re` would backtrack on these patterns for minutes to hours while holding the GIL,
so each slow case runs in a child process that a generous timeout guards: the test fails
instead of hanging if the bound is ever lost.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from promptum import Completion
from promptum.checks import CheckDefinition, evaluate_checks
from promptum.providers._structured import SchemaMismatch, parse_structured
from tests.support.fault_server import Reply, fault_server
from tests.support.interrupts import wait_for_requests

ROOT = Path(__file__).resolve().parents[2]
GUARD_S = 120  # far above the 1 s bound, far below "hangs for hours"
CATASTROPHIC = r"^(a|aa)*$"  # exponential for both `re` and `regex`
SLOW_TEXT = "a" * 60 + "b"
ANSWER_54 = "The capital of France is Paris and it is a great city!"  # `re`: minutes


def _child(code: str) -> list[str]:
    """Run ``code`` in a fresh interpreter and return its output lines; fail if it hangs."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=GUARD_S,
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {GUARD_S} s: the regex bound does not hold")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_reported_catastrophic_regex_finishes_and_fails() -> None:
    assert len(ANSWER_54) == 54
    lines = _child(
        f"""
        from promptum import Completion
        from promptum.checks import CheckDefinition, evaluate_checks
        check = CheckDefinition(type="regex", value=r"^(\\w+\\s?)*$")
        (result,) = evaluate_checks([check], Completion(text={ANSWER_54!r}))
        print(result.passed)
        print(result.reason)
        """
    )
    assert lines[0] == "False"
    assert lines[1].startswith(("expected to match /", "regex took longer than 1 s"))


@pytest.mark.parametrize("check_type", ["regex", "not_regex"])
def test_a_search_out_of_time_is_a_failed_check_with_the_reason(check_type: str) -> None:
    lines = _child(
        f"""
        from promptum import Completion
        from promptum.checks import CheckDefinition, evaluate_checks
        check = CheckDefinition(type={check_type!r}, value={CATASTROPHIC!r})
        results = evaluate_checks([check], Completion(text={SLOW_TEXT!r}))
        print(len(results), results[0].type, results[0].passed)
        print(results[0].reason)
        """
    )
    assert lines[0] == f"1 {check_type} False"
    assert lines[1].startswith(
        f"regex took longer than 1 s on this response: /{CATASTROPHIC}/ backtracks"
    )


@contextmanager
def _running(command: list[str], **options: Any) -> Iterator[subprocess.Popen[str]]:
    """`command` in a process of its own, killed at the end of the block if still running."""
    child = subprocess.Popen(command, text=True, **options)
    try:
        yield child
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()


def _ctrl_c(child: subprocess.Popen[str], holder: str) -> tuple[str, str]:
    """Ctrl-C: the process's output and error output once it has stopped, as it must."""
    child.send_signal(signal.SIGINT)
    try:
        return child.communicate(timeout=GUARD_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"Ctrl-C did not stop the process: {holder} holds it")


def test_ctrl_c_stops_a_run_stuck_in_slow_checks() -> None:
    script = textwrap.dedent(
        f"""
        from promptum import Completion
        from promptum.checks import CheckDefinition, evaluate_checks
        check = CheckDefinition(type="regex", value={CATASTROPHIC!r})
        completion = Completion(text={SLOW_TEXT!r})
        print("started", flush=True)
        while True:
            evaluate_checks([check], completion)
        """
    )
    command = [sys.executable, "-c", script]
    with _running(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        time.sleep(0.5)  # inside a search by now
        _, stderr = _ctrl_c(child, "a search")
    assert "KeyboardInterrupt" in stderr


@pytest.mark.slow
def test_ctrl_c_stops_promptum_run_within_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = ", ".join([f"{{type: regex, value: '{CATASTROPHIC}'}}"] * 3)
    (tmp_path / "suite.yaml").write_text(
        "models: [fault/m]\ntest_cases:\n"
        + "".join(f"  - {{id: c{i}, query: q{i}, checks: [{checks}]}}\n" for i in range(20)),
        encoding="utf-8",
    )
    with fault_server() as server:
        server.default = Reply.ok(SLOW_TEXT)
        env = {**os.environ, "PROMPTUM_FAULT_BASE_URL": server.base_url}
        command = [sys.executable, "-m", "promptum", "run", "suite.yaml", "-c", "1", "--no-cache"]
        options = {"cwd": tmp_path, "env": env, "stderr": subprocess.STDOUT}
        with _running(command, stdout=subprocess.PIPE, **options) as child:
            wait_for_requests(server, 2, child)  # the first answer is being checked
            # Stopped: a few bounded searches at most, never the backtracking.
            output, _ = _ctrl_c(child, "a check of `promptum run`")
    assert child.returncode == 130, output


@pytest.mark.parametrize(
    ("definition", "text", "passed", "reason"),
    [
        ({"type": "regex", "value": r"\d{3}-\d{4}"}, "Call 555-1234", True, None),
        (
            {"type": "regex", "value": r"\d{3}-\d{4}"},
            "no number",
            False,
            r"expected to match /\d{3}-\d{4}/, got 'no number'",
        ),
        ({"type": "regex", "value": "paris", "case_insensitive": True}, "PARIS", True, None),
        ({"type": "regex", "value": r"^\d+$"}, "2024", True, None),
        (
            {"type": "regex", "value": r"^\d+$"},
            "20x4",
            False,
            r"expected to match /^\d+$/, got '20x4'",
        ),
        ({"type": "not_regex", "value": "(?i)sorry"}, "Fine.", True, None),
        (
            {"type": "not_regex", "value": "(?i)sorry"},
            "I am SORRY.",
            False,
            "expected not to match /(?i)sorry/, found 'SORRY'",
        ),
    ],
)
def test_ordinary_patterns_behave_as_before(
    definition: dict[str, object], text: str, passed: bool, reason: str | None
) -> None:
    (result,) = evaluate_checks([CheckDefinition.model_validate(definition)], Completion(text=text))
    assert (result.passed, result.reason) == (passed, reason)


@pytest.mark.parametrize(
    ("pattern", "linear"),
    [
        (r"\d{3}-\d{4}", True),
        ("(?i)sorry|apolog", True),
        (r"\bParis\b", True),
        ("(?:ab){3}(?=x|yz)", True),
        (r"\d+", False),
        ("colou?r", False),
        ("^(a|aa)*$", False),
        ("(ab|cd)(ef|gh)", False),
        ("(ab|cd){3}", False),
        ("(a)?(?(1)b|c)", False),
        ("Paris{e<=1}", False),  # fuzzy matching, in the regex engine
        (r"\p{Lu}", False),  # regex-only syntax: re's parser cannot vouch for it
    ],
)
def test_only_patterns_thatcannot_backtrack_skip_the_clock(pattern: str, linear: bool) -> None:
    from promptum.validation._regex import cannot_backtrack

    assert cannot_backtrack(pattern, 0) is linear


def test_a_pattern_is_compiled_once() -> None:
    from promptum.validation._regex import bounded_search

    CheckDefinition(type="regex", value=r"cached\d+")
    assert bounded_search(r"cached\d+") is bounded_search(r"cached\d+")


def test_json_schema_patterns_are_bounded_too() -> None:
    slow_value = {"properties": {"a": {"type": "string", "pattern": CATASTROPHIC}}}
    slow_key = {"patternProperties": {CATASTROPHIC: {}}}
    no_extra = {**slow_key, "additionalProperties": False}
    cases = [(slow_value, {"a": SLOW_TEXT}), (slow_key, {SLOW_TEXT: 1}), (no_extra, {SLOW_TEXT: 1})]
    lines = _child(
        f"""
        import json
        from promptum.providers._structured import SchemaMismatch, parse_structured
        from promptum.validation import JsonSchema
        for schema, value in json.loads({json.dumps(cases)!r}):
            try:
                parse_structured(json.dumps(value), schema)
            except SchemaMismatch as exc:
                print(exc)
            passed, details = JsonSchema(schema=schema).validate(json.dumps(value))
            print(passed, details["schema_errors"][0])
        """
    )
    assert len(lines) == 6
    assert lines[0].startswith("the response does not fit the schema at $.a: regex took longer")
    assert lines[1].startswith("False $.a: regex took longer than 1 s on this string")
    for line in lines[2:]:
        assert "regex took longer than 1 s on the key 'aaaa" in line


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"properties": {"a": {"pattern": "^x"}}}, {"a": "y"}, "'y' does not match '^x'"),
        (
            {"patternProperties": {"^x": {"type": "integer"}}},
            {"xa": "s"},
            "'s' is not of type 'integer'",
        ),
        (
            {"patternProperties": {"^x": {}}, "additionalProperties": False},
            {"y": 1},
            "'y' does not match any of the regexes: '^x'",
        ),
        (
            {"properties": {"a": {}}, "additionalProperties": False},
            {"a": 1, "b": 2},
            "Additional properties are not allowed ('b' was unexpected)",
        ),
        (
            {"properties": {"a": {}}, "additionalProperties": {"type": "string"}},
            {"a": 1, "b": 2},
            "2 is not of type 'string'",
        ),
    ],
)
def test_schema_keywords_keep_jsonschemas_verdicts_and_words(
    schema: dict[str, object], value: dict[str, object], message: str
) -> None:
    with pytest.raises(SchemaMismatch, match=None) as caught:
        parse_structured(json.dumps(value), schema)
    assert str(caught.value).endswith(message)
    matching = {"a": "x", "xa": 1}
    assert parse_structured(json.dumps(matching), {"patternProperties": {"^x": {}}}) == matching
