"""A suite's defaults are looked at once, not per case: the cases are those built per case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptum.cases import GenerationParams, TestCase
from promptum.checks import expressions_of
from promptum.errors import ConfigError
from promptum.runner import Survey
from promptum.suites import _build_checks, _loader, _reused, load_suite

HEAD = """\
name: reused
models: [m1]
vars: {who: Ann}
defaults:
  params: {temperature: 0.3, extra: {top_k: 5}}
  checks:
    - {type: not_contains, value: sorry}
    - {type: contains, value: "{{ answer }}"}
    - {type: expr, value: "latency_ms < 100000"}
    - {type: max_length, value: 300}
test_cases:
"""

CASE = """\
  - id: c{i}
    query: "Question {i} for {{{{ who }}}}"
    vars: {{answer: a{i}}}
    checks: [{{type: contains, value: x{i}}}]
"""

CASES = 30


def _suite(folder: Path, extra: str = "") -> Path:
    body = "".join(CASE.format(i=i) for i in range(CASES))
    path = folder / "suite.yaml"
    path.write_text(HEAD + body + extra, encoding="utf-8")
    return path


def _loaded(path: Path) -> list[TestCase]:
    return list(load_suite(path).cases)


def _per_case(monkeypatch: pytest.MonkeyPatch) -> None:
    """Build every case as before the defaults were reused: each looked at per case."""
    monkeypatch.setattr(_reused.Reused, "plain", lambda self, check: False)
    monkeypatch.setattr(
        _reused.Reused, "params", lambda self, defaults, case: _reused.merged_params(defaults, case)
    )


OWN_PARAMS = """\
  - id: own
    query: hi
    vars: {answer: own}
    params: {max_tokens: 10, extra: {stop: [END]}}
    checks: [{type: contains, value: hi}]
"""


def test_the_cases_are_those_built_per_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _suite(tmp_path, OWN_PARAMS)
    reused = _loaded(path)
    with monkeypatch.context() as patched:
        _per_case(patched)
        per_case = _loaded(path)
    assert reused == per_case
    assert Survey.of(reused, fingerprint=True).fingerprint == (
        Survey.of(per_case, fingerprint=True).fingerprint
    )


def test_default_checks_are_looked_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    looked_at: list[object] = []
    real = expressions_of

    def counted(check: object) -> object:
        looked_at.append(check)
        return real(check)  # type: ignore[arg-type]

    built: list[object] = []
    real_build = _loader.build_case

    def counted_build(*args: Any) -> TestCase:
        built.append(args)
        return real_build(*args)

    monkeypatch.setattr(_build_checks, "expressions_of", counted)
    monkeypatch.setattr(_loader, "build_case", counted_build)
    path = _suite(tmp_path)
    without_expr = path.read_text(encoding="utf-8").replace("type: expr", "type: not_contains")
    path.write_text(without_expr, encoding="utf-8")
    _loaded(path)
    # Per case built: its own check and the default filled in from its vars; the other
    # three defaults (the same objects in every case) were looked at once, by `Reused`.
    # (Cases after the second copy the first, as data rows do: they are not built.)
    assert 2 <= len(built) < CASES
    assert len(looked_at) == 2 * len(built)


def test_a_default_check_with_a_template_is_filled_in_per_case(tmp_path: Path) -> None:
    cases = _loaded(_suite(tmp_path))
    assert [case.grading.checks[1].value for case in cases] == [f"a{i}" for i in range(CASES)]
    assert cases[0].grading.checks[0] is cases[1].grading.checks[0]  # a plain default: one object


def test_defaults_params_and_a_cases_own(tmp_path: Path) -> None:
    cases = _loaded(_suite(tmp_path, OWN_PARAMS))
    assert cases[0].params == GenerationParams(temperature=0.3, extra={"top_k": 5})
    assert cases[-1].params == GenerationParams(
        temperature=0.3, max_tokens=10, extra={"top_k": 5, "stop": ["END"]}
    )


def test_a_list_in_the_defaults_params_is_not_one_object_for_every_case(tmp_path: Path) -> None:
    path = _suite(tmp_path)
    text = path.read_text(encoding="utf-8").replace("top_k: 5", "stop: [END]")
    path.write_text(text, encoding="utf-8")
    cases = _loaded(path)
    assert cases[0].params == cases[1].params
    assert cases[0].params.extra == {"stop": ["END"]}


TOOLS = """\
  - id: tools
    query: hi
    vars: {answer: own}
    tools:
      - {type: function, function: {name: search}}
    checks: [{type: tool_called, value: lookup}]
"""


def test_a_tool_check_still_names_the_missing_tool(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        _loaded(_suite(tmp_path, TOOLS))
    message = str(raised.value)
    assert f"suite.yaml:{11 + 4 * CASES + 6}" in message  # the check's line
    assert "'lookup'" in message
    assert "search" in message
