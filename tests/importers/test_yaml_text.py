"""The importer's YAML writer: what the suites' writer (ruamel.yaml) says, in the same layout.

Whatever the data, the text reads back as it (`dump` checks, and raises if not), every
comment is on the line above its entry, and the comments, data and layout agree with the
suites' writer; only long texts are not folded.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptum.importers._writer import Commented, dump, plain
from promptum.suites import suite_nodes, suite_text

_KEYS = st.text(max_size=12)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()
    | st.sampled_from(["yes", "1e17", "a: b", "- x", "#", "line\nline\n", "\nlead", "x\ty"])
)


def _noted(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Values, some with comment lines and a tag, as the importer writes them."""
    comments = st.lists(st.text(max_size=30), min_size=1, max_size=2).map(tuple)
    tagged = st.builds(Commented, strategy, comments, st.uuids())
    return strategy | tagged


_VALUES = st.recursive(
    _noted(_SCALARS),
    lambda inner: _noted(st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=20,
)


def _tags(value: Any) -> list[object]:
    found = [value.tag] if isinstance(value, Commented) else []
    inner = value.value if isinstance(value, Commented) else value
    children = (
        inner.values() if isinstance(inner, dict) else inner if isinstance(inner, list) else []
    )
    return found + [tag for child in children for tag in _tags(child)]


def _comments(text: str) -> list[str]:
    """The text's comments; an empty one the suites' writer leaves out."""
    return [line.strip() for line in text.splitlines() if line.lstrip().startswith("# ")]


def _unwrapped(value: Any) -> tuple[Any, tuple[str, ...]]:
    """A value and its comment lines, as the suites' writer takes them."""
    return (value.value, value.comments) if isinstance(value, Commented) else (value, ())


def _commented_above(lines: list[str], start: int) -> bool:
    """Whether the entry on line `start` (1-based) has a comment above it, or above its dash."""
    above = lines[start - 2].strip()
    if above == "-":  # a list written in a list item starts on the line below the dash
        above = lines[start - 3].strip()
    return above.startswith("#")


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=4))
def test_any_data_reads_back_with_its_comments_above_their_entries(data: dict[str, Any]) -> None:
    text, spans = dump(data, ("header",))  # raises when the text does not read back as data
    assert yaml.safe_load(text) == plain(data)
    lines = text.splitlines()
    for tag in _tags(data):
        start, _ = spans[tag]
        assert _commented_above(lines, start)
    assert _comments(text) == _comments(suite_text(suite_nodes(data, _unwrapped), ("header",)))


def test_the_layout_is_the_suites_writers() -> None:
    data = {
        "models": [Commented("openai/gpt-4o-mini", ("promptfooconfig.yaml:3",), "m")],
        "test_cases": [
            Commented(
                {
                    "id": "refund",
                    "vars": {"question": "Can I get a refund?", "n": 2},
                    "checks": [
                        Commented({"type": "contains", "value": "refund"}, ("a.yaml:9",), "c"),
                        {"type": "expr", "value": "output | length < 500", "weight": 0.5},
                    ],
                    "expected_behavior": "Explains the policy\nand the deadline\n",
                },
                ("a.yaml:7: refund",),
                "t",
            )
        ],
    }
    text, _ = dump(data, ("Converted",))
    assert text == suite_text(suite_nodes(data, _unwrapped), ("Converted",))


def test_a_long_text_is_written_on_one_line() -> None:
    long = "word " * 40 + "end"
    text, _ = dump({"judge": {"criteria": {"rubric": long}}})
    assert f"rubric: {long}\n" in text
    assert max(len(line) for line in text.splitlines()) > 100
    assert re.search(r"^    rubric: ", text, re.MULTILINE)
