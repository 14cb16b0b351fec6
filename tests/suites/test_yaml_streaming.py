"""A YAML suite is read a case at a time: the same data, guards and errors, a case's memory."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptum.errors import ConfigError
from promptum.suites import _yaml_reader
from tests.support.cli import write

DOCUMENTS = {
    "anchors across cases and keys": """\
        defaults: &defaults {checks: [{type: contains, value: hi}]}
        test_cases:
          - &first {id: a, query: hi, vars: &vars {x: 1}}
          - {<<: *first, id: b}
          - {id: c, query: hi, vars: *vars, defaults: *defaults}
          - *first
        after: [*vars, *first]
        """,
    "a flow list of cases": "test_cases: [{id: a, query: hi}, {id: b, query: ho}]\nname: x\n",
    "cases under a quoted key": '"test_cases":\n  - {id: a, query: hi}\n',
    "an anchored list of cases": "test_cases: &all\n  - {id: a, query: hi}\nagain: *all\n",
    "a tagged list of cases": "test_cases: !!seq\n  - {id: a, query: hi}\n",
    "an aliased list of cases": "base: &b [{id: a}]\ntest_cases: *b\n",
    "cases that are not a list": "test_cases: none\n",
    "an anchored document": "&top\nname: x\ntest_cases: [{id: a}]\n",
    "a list": "- a\n- b\n",
    "a text": "just text\n",
    "an empty file": "",
    "a marked document": "---\ntest_cases:\n  - id: a\n...\n",
    "merged top-level keys": "base: &b {name: x}\n<<: *b\ntest_cases: []\n",
}


def _load_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        _yaml_reader.read_yaml(path)
    return str(caught.value)


@pytest.mark.parametrize("text", DOCUMENTS.values(), ids=DOCUMENTS.keys())
def test_a_document_reads_as_pyyaml_reads_it_whole(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "suite.yaml", text)
    data, _ = _yaml_reader.read_yaml(path)
    assert data == yaml.safe_load(path.read_text(encoding="utf-8"))


def test_cases_written_twice_are_reported(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", "test_cases: [{id: a}]\nname: x\ntest_cases: [{id: b}]\n")
    assert f"{path}:3:1: test_cases: key 'test_cases' appears twice" in _load_error(path)


def test_cases_and_top_level_keys_are_located(tmp_path: Path) -> None:
    path = write(tmp_path / "suite.yaml", DOCUMENTS["anchors across cases and keys"])
    _, locator = _yaml_reader.read_yaml(path)
    assert locator.line(("test_cases", 1)) == f"{path}:4"
    assert locator.line(("test_cases", 3)) == f"{path}:3"  # an alias is where its anchor is
    assert locator.at(("after",)) == f"{path}:7:1"
    assert locator.at(("test_cases", 0, "vars", "x")) == f"{path}:3:44"  # found from the text
    # A second alias of a node is not walked again: it is located at its key.
    assert locator.at(("test_cases", 2, "vars", "x")) == f"{path}:5:24"


def _aliased_cases(count: int) -> str:
    cases = "".join(f"  - {{id: c{i}, query: hi, vars: *big}}\n" for i in range(1, count + 1))
    big = ", ".join(["x"] * 50)
    return f"test_cases:\n  - {{id: c0, query: hi, vars: &big [{big}]}}\n{cases}"


def test_aliases_spread_over_many_cases_add_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_VALUES", 1000)
    # Each alias adds the 51 values of the anchored list: 20 are over the limit together.
    data, _ = _yaml_reader.read_yaml(write(tmp_path / "suite.yaml", _aliased_cases(19)))
    assert len(data["test_cases"]) == 20
    path = write(tmp_path / "suite.yaml", _aliased_cases(20))
    message = _load_error(path)
    assert message.startswith(f"{path}:2:3: test_cases: through its aliases")
    assert "more than 1,000 values beyond those written" in message


def test_cases_that_are_aliases_add_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_VALUES", 1000)
    # The anchored case is 57 values (its mapping, 3 keys, 2 values, the list of 51).
    big = ", ".join(["x"] * 50)
    path = write(
        tmp_path / "suite.yaml",
        f"test_cases:\n  - &c {{id: a, query: hi, vars: [{big}]}}\n" + "  - *c\n" * 20,
    )
    assert _load_error(path).startswith(f"{path}:2:3: test_cases: through its aliases")


def test_an_error_of_the_yaml_itself_comes_before_an_alias_bomb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_VALUES", 1000)
    path = write(
        tmp_path / "suite.yaml", _aliased_cases(30) + "  - {id: broken, query: 'unclosed}\n"
    )
    assert ": invalid YAML: " in _load_error(path)


def test_an_alias_bomb_comes_before_a_value_that_cannot_be_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_yaml_reader, "MAX_ALIAS_VALUES", 1000)
    unbuildable = "  - {id: x, query: !!python/name:os.system ''}\n"
    path = write(tmp_path / "suite.yaml", _aliased_cases(30).replace("\n", "\n" + unbuildable, 1))
    assert "refused as an alias bomb" in _load_error(path)


def test_a_value_that_cannot_be_built_comes_before_a_duplicate_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - {id: a, id: b}\n  - {id: x, query: !!python/name:os.system ''}\n",
    )
    message = _load_error(path)
    assert message.startswith(f"{path}:3:")
    assert "could not determine a constructor" in message


def test_a_case_nested_too_deeply_for_the_document_is_refused_at_its_list(
    tmp_path: Path,
) -> None:
    # The case is 100 levels deep, the list holding it 101.
    path = write(tmp_path / "suite.yaml", "test_cases:\n  - " + "[" * 100 + "]" * 100 + "\n")
    assert _load_error(path).startswith(f"{path}:2:3: test_cases: values are nested more than")


def _suite_text(cases: int) -> str:
    return "name: big\ntest_cases:\n" + "".join(
        f"  - id: case-{i}\n    query: What is {i} + 1?\n    tags: [math]\n"
        f"    checks:\n      - {{type: contains, value: '{i + 1}'}}\n"
        for i in range(cases)
    )


def _peak_bytes(path: Path) -> tuple[int, Any]:
    tracemalloc.start()
    try:
        data, _ = _yaml_reader.read_yaml(path)
        return tracemalloc.get_traced_memory()[1], data
    finally:
        tracemalloc.stop()


def test_reading_holds_one_case_of_nodes_not_the_whole_graph(tmp_path: Path) -> None:
    small = tmp_path / "small.yaml"
    small.write_text(_suite_text(200), encoding="utf-8")
    large = tmp_path / "large.yaml"
    large.write_text(_suite_text(4000), encoding="utf-8")
    small_peak, _ = _peak_bytes(small)
    large_peak, data = _peak_bytes(large)
    assert len(data["test_cases"]) == 4000
    # What each case adds: its data (about 2 KB), not its nodes too (about 5 KB more).
    assert (large_peak - small_peak) / 3800 < 3000


def test_values_nested_past_what_is_composed_are_refused_where_they_start(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "suite.yaml",
        "test_cases:\n  - {id: a, vars: {x: " + "[" * 500 + "]" * 500 + "}}\n",
    )
    message = _load_error(path)
    assert message.startswith(f"{path}:2:221: invalid YAML: values are nested more than 200")
