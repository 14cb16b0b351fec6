"""Written cases that differ from the one before only as data rows do are copied from it
(writing its tags, must_pass and repeat the same is allowed): the cases, their errors and the
plan's fingerprint are those a full build of each gives."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptum.cases import TestCase
from promptum.errors import ConfigError
from promptum.runner import Survey
from promptum.suites import _loader, _row_build, load_suite
from promptum.suites._format import FILLED, SHARED, CaseFields, RowCopy


def _loaded(path: Path) -> tuple[list[TestCase], str | None] | str:
    """The suite's cases and plan fingerprint, or its error."""
    try:
        cases = list(load_suite(path).cases)
    except ConfigError as exc:
        return str(exc)
    return cases, Survey.of(cases, fingerprint=True).fingerprint


def _in_full(path: Path) -> tuple[list[TestCase], str | None] | str:
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(_row_build, "_COPIED_KEYS", frozenset())  # no case copied
        patched.setattr(_row_build, "_SHARED_KEYS", frozenset())
        return _loaded(path)


def _loaded_counting_builds(path: Path) -> tuple[tuple[list[TestCase], str | None] | str, int]:
    """`_loaded(path)`, and how many cases loading built in full."""
    built = 0
    real = _loader.build_case

    def counted(*args: Any) -> TestCase:
        nonlocal built
        built += 1
        return real(*args)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(_loader, "build_case", counted)
        return _loaded(path), built


def _write(folder: Path, cases: list[dict[str, Any]], defaults: list[Any]) -> Path:
    suite = {
        "name": "written",
        "models": ["m1"],
        "vars": {"who": "Ann", "x": "0"},
        "test_cases": cases,
    }
    if defaults:
        suite["defaults"] = {"checks": defaults}
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


_VALUES = st.sampled_from(["42", "", "ü ✓", "{{ x }}", "{{ who }}", "{{ nope }}", "(", "\\d+"])
_CHECKS = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["contains", "not_contains", "regex", "equals"]), "value": _VALUES}
    ),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["max_length", "max_latency_ms"]),
            "value": st.sampled_from([500, 500.0, True, "500", -1, 0]),
        }
    ),
    st.fixed_dictionaries(
        {"type": st.just("contains"), "value": _VALUES, "description": st.just("says it")}
    ),
)
_CASE = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["a", "b", "c", "d", ""]),
        "query": st.sampled_from(["Question {{ who }}", "Q {{ x }}", "plain", "", "{{ canary }}"]),
    },
    optional={
        "system": st.sampled_from(["Be brief.", "{{ who }} asks"]),
        "vars": st.dictionaries(st.just("x"), st.sampled_from(["1", "two", 3])),
        "checks": st.lists(_CHECKS, min_size=1, max_size=3),
        "tags": st.just(["t"]),
    },
)


_GOOD_CHECKS = st.lists(
    st.sampled_from(
        [
            {"type": "contains", "value": "42"},
            {"type": "regex", "value": "\\d+"},
            {"type": "not_contains", "value": "{{ x }}"},
            {"type": "max_length", "value": 500},
            {"type": "max_latency_ms", "value": 5000.0},
            {"type": "contains", "value": "ü", "description": "says it"},
        ]
    ),
    min_size=1,
    max_size=4,
)
_FIRST = st.fixed_dictionaries(
    {
        "id": st.just("a"),
        "query": st.sampled_from(["Question {{ who }}", "Q {{ x }}", "plain"]),
        "checks": _GOOD_CHECKS,
    },
    optional={
        "system": st.just("Be brief."),
        "vars": st.just({"x": "1"}),
        "tags": st.sampled_from([["t"], "t", ["t", "{{ x }}"]]),
        "must_pass": st.just(True),
        "repeat": st.just(2),
    },
)
"""A first case that loads, as a large suite's first case does."""


_NEW_VALUES = st.one_of(_VALUES, st.sampled_from([500, 500.0, True, 0, "ü", "43"]))
_NEW_SHARED = st.sampled_from([["t"], "t", ["u"], [], True, False, 2, 2.0, 1, None])
"""A case's own tags, must_pass or repeat: its first case's, or other ones (some invalid)."""


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=_FIRST,
    changes=st.lists(
        st.one_of(
            st.dictionaries(st.sampled_from(["query", "value", "vars"]), _NEW_VALUES),
            st.dictionaries(st.sampled_from(["tags", "must_pass", "repeat"]), _NEW_SHARED),
        ),
        min_size=3,
        max_size=8,
    ),
    others=st.lists(_CASE, max_size=2),
    defaults=st.one_of(_GOOD_CHECKS, st.lists(_CHECKS, max_size=2)),
)
def test_copied_cases_are_those_built_in_full(
    first: dict[str, Any],
    changes: list[dict[str, Any]],
    others: list[dict[str, Any]],
    defaults: list[Any],
) -> None:
    # Cases like the first (as a large suite's are), each changing a little of it: its
    # prompt, its first check's value, its vars; then a few cases of any kind.
    cases = [first]
    for number, change in enumerate(changes):
        case = {**first, "id": f"case-{number}"}
        if "query" in change:
            case["query"] = change["query"]
        if "value" in change:
            case["checks"] = [
                {**first["checks"][0], "value": change["value"]},
                *first["checks"][1:],
            ]
        if "vars" in change and "vars" in first:
            case["vars"] = {"x": change["vars"]}
        for key in ("tags", "must_pass", "repeat"):
            if key in change:
                case[key] = change[key]
        cases.append(case)
    cases += others
    with tempfile.TemporaryDirectory() as folder:
        path = _write(Path(folder), cases, defaults)
        assert _loaded(path) == _in_full(path)


def test_a_large_written_suite_builds_only_its_first_cases(tmp_path: Path) -> None:
    checks = [
        {"type": "contains", "value": "42"},
        {"type": "regex", "value": "\\d+"},
        {"type": "max_length", "value": 500},
        {"type": "max_latency_ms", "value": 5000},
    ]
    cases = [{"id": f"case-{n}", "query": f"Question {n}", "checks": checks} for n in range(50)]
    for n in range(5, 50, 7):  # their own value of a check: copied, with it
        cases[n] = {**cases[n], "checks": [{"type": "contains", "value": f"4{n}"}, *checks[1:]]}
    cases[30] = {**cases[30], "checks": [*checks[:2], {"type": "max_length", "value": 500.0}]}
    for case in cases:  # written alike in every case: shared with the first case's
        case.update({"tags": ["math"], "must_pass": True})
    cases[40] = {**cases[40], "tags": ["math", "hard"]}  # its own: built in full
    path = _write(tmp_path, cases, [])
    loaded, built = _loaded_counting_builds(path)
    # The first two (the prototype and the case that vouches for it), the one whose checks
    # differ (500.0 is not 500 to a check) and the one with its own tags are built; the
    # others are copied.
    assert built == 4
    assert loaded == _in_full(path)
    assert isinstance(loaded, tuple)
    assert loaded[0][30].grading.checks[2].value == 500.0
    assert loaded[0][31].grading.checks[2].value == 500
    assert [case.grading.checks[0].value for case in loaded[0][5:13]] == ["45", *["42"] * 6, "412"]
    assert {case.tags for case in loaded[0]} == {("math",), ("math", "hard")}
    assert all(case.must_pass for case in loaded[0])


def test_a_key_whose_field_declares_no_row_role_keeps_its_cases_built_in_full(
    tmp_path: Path,
) -> None:
    declared = {
        name: [role for role in field.metadata if isinstance(role, RowCopy)]
        for name, field in CaseFields.model_fields.items()
    }
    assert {key for key, roles in declared.items() if FILLED in roles} == _row_build._COPIED_KEYS
    assert {key for key, roles in declared.items() if SHARED in roles} == _row_build._SHARED_KEYS
    assert declared["models"] == []
    cases = [{"id": f"case-{n}", "query": f"Q {n}", "models": ["m1"]} for n in range(6)]
    path = _write(tmp_path, cases, [])
    loaded, built = _loaded_counting_builds(path)
    assert built == 6
    assert loaded == _in_full(path)
