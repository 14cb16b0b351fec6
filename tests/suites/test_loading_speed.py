"""Loading fast (issue 28): plain YAML cases built from the parser's events, plain templates
filled in without Jinja; the same data, positions, problems and errors as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptum import templating
from promptum.errors import ConfigError
from promptum.suites import _yaml_reader
from promptum.templating import _budget, _plain, _render
from tests.support.cli import write

CASES = {
    "plain cases": """\
        name: x
        test_cases:
          - id: a
            query: "What is 1 + 2?"
            tags: [math, 'quoted']
            checks:
              - {type: contains, value: "3"}
              - {type: max_length, value: 200}
          - {id: b, query: hi, vars: {n: 1, f: 1.5, yes_: yes, sw: off, none: null, d: 2024-01-02}}
          - id: c
            query: >-
              folded
              text
            vars: {empty: , list: [[1, [2, [3]]]], "1": one, '': blank, quoted_int: "7"}
          - just text
          - 12
          - []
          - {}
        """,
    "a case file": "- {id: a, query: hi}\n- id: b\n  query: ho\n  vars: {x: ~}\n",
    "cases with anchors, aliases, merge keys and tags": """\
        test_cases:
          - &first {id: a, query: hi, vars: &vars {x: 1}}
          - {<<: *first, id: b}
          - {id: c, query: !!str 12, vars: *vars}
          - *first
          - {id: d, query: hi, vars: {x: ! 5, y: !!int "6"}}
          - {id: e, query: hi, vars: {<<: {x: 1}}}
        """,
    "a key that is not text": "test_cases:\n  - {id: a, 1: one, true: t, null: n}\n",
    "nesting past what is built from events": "test_cases:\n  - {id: a, vars: {x: "
    + "[" * 60
    + "1"
    + "]" * 60
    + "}}\n",
}


def _composed(monkeypatch: pytest.MonkeyPatch, path: Path) -> tuple[Any, dict[Any, Any], list[str]]:
    """What reading `path` gives with every case composed into nodes, as before."""
    with monkeypatch.context() as patched:
        patched.setattr(_yaml_reader._Loader, "built", lambda self: None)
        data, locator, problems = _yaml_reader.parse_yaml(path.read_text(encoding="utf-8"), path)
    return data, dict(locator.positions), problems


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_cases_built_from_events_are_the_composed_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    path = write(tmp_path / "suite.yaml", text)
    data, locator, problems = _yaml_reader.parse_yaml(path.read_text(encoding="utf-8"), path)
    composed, positions, composed_problems = _composed(monkeypatch, path)
    assert data == composed
    assert [type(case) for case in _cases(data)] == [type(case) for case in _cases(composed)]
    assert _types(data) == _types(composed)
    assert dict(locator.positions) == positions
    assert problems == composed_problems


def _cases(data: Any) -> list[Any]:
    return data if isinstance(data, list) else data["test_cases"]


def _types(value: Any) -> Any:
    """`value` with each scalar replaced by its type: `1 == 1.0 == True` would hide a change."""
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value)


def test_plain_cases_are_built_from_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[bool] = []
    original = _yaml_reader._Loader.built

    def counted(self: _yaml_reader._Loader) -> tuple[Any, Any] | None:
        result = original(self)
        built.append(result is not None)
        return result

    monkeypatch.setattr(_yaml_reader._Loader, "built", counted)
    path = write(tmp_path / "suite.yaml", CASES["cases with anchors, aliases, merge keys and tags"])
    _yaml_reader.parse_yaml(path.read_text(encoding="utf-8"), path)
    # Each has an anchor, an alias, a tag or a merge key: composed as before.
    assert built == [False, False, False, False, False, False]
    built.clear()
    path = write(tmp_path / "suite.yaml", CASES["plain cases"])
    _yaml_reader.parse_yaml(path.read_text(encoding="utf-8"), path)
    assert built == [True] * 7


def test_problems_in_cases_built_from_events_are_located(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        """\
        test_cases:
          - {id: a, query: hi}
          - id: b
            query: hi
            checks:
              - {type: contains, value: x}
              - {type: contains, value: [1, 2], nope: 1}
          - {id: c, query: hi, id: again}
        """,
    )
    data, locator, problems = _yaml_reader.parse_yaml(path.read_text(encoding="utf-8"), path)
    assert problems == [f"{path}:8:24: test_cases[2].id: key 'id' appears twice; keep one"]
    assert locator.at(("test_cases", 1)) == f"{path}:3:5"
    # Found from the text only when needed: a field deep in a case built from events.
    assert locator.at(("test_cases", 1, "checks", 1, "nope")) == f"{path}:7:41"
    assert data["test_cases"][1]["checks"][1] == {"type": "contains", "value": [1, 2], "nope": 1}


def test_a_yaml_error_after_cases_built_from_events_is_located(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml", 'test_cases:\n  - {id: a, query: hi}\n  - {id: b, query: "open\n'
    )
    with pytest.raises(ConfigError) as caught:
        _yaml_reader.read_yaml(path)
    assert str(caught.value).startswith(f"{path}:4:1: invalid YAML")


TEMPLATES = [
    ("Hi {{ name }}!", {"name": "Ada"}),
    ("{{name}}{{ n }}\n", {"name": "a", "n": 3}),
    ("{{\n f\n}} and {{ f }}", {"f": 1.5}),
    ("{{ true }} {{ none }}", {"true": "x", "none": "y"}),  # constants to Jinja, not names
    ("{{ range }}", {"range": "shadowed"}),
    ("a\r\nb {{ x }}", {"x": "1"}),  # Jinja writes the newline as \n
    ("{{ x }} }} { %}", {"x": "q"}),
    ("{{ x }}", {"x": None}),
    ("{{ x }}", {"x": True}),
    ("{{ x }}", {"x": [1, {"a": 2}]}),
    ("{{ x | upper }} {{ y }}", {"x": "a", "y": "b"}),
    ("{{- x }} {{ y -}} .", {"x": "a", "y": "b"}),
    ("{% if x %}{{ x }}{% endif %}{# c #}", {"x": "a"}),
]


@pytest.mark.parametrize(("text", "variables"), TEMPLATES)
def test_a_plain_template_renders_as_jinja_renders_it(text: str, variables: dict[str, Any]) -> None:
    assert templating.render(text, variables) == _render.compiled(text).render(variables)


def test_plain_templates_fill_in_names_without_jinja() -> None:
    assert _plain.plain("Say {{ a }} to {{b}}.") == ("Say ", "a", " to ", "b", ".")
    for text in (
        "{{ a | upper }}",
        "{{ _a }}",
        "{{ a.b }}",
        "{{- a }}",
        "{{ true }}",
        "a\r{{ b }}",
    ):
        assert _plain.plain(text) is None, text


def test_a_plain_template_fails_as_jinja_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(templating.TemplateError, match="'missing' is undefined"):
        templating.render("Hi {{ missing }}", {"other": 1})
    monkeypatch.setattr(_budget, "MAX_TEMPLATE_SIZE", 10)
    with pytest.raises(templating.TemplateError, match="cannot write more than 10 characters"):
        templating.render("{{ x }}", {"x": "y" * 11})
