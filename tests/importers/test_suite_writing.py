"""The converted suite as written: what the data says, each comment above its entry.

Whatever the data, the text reads back as it, every comment is on the line above its
entry, and each tagged part's lines hold the parts inside it; long texts are not folded.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptum.importers._writer import Commented, dump, plain

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


def _tags(value: Any, outer: object = None) -> list[tuple[object, object]]:
    """Each tag within `value`, with the tag of the part holding it (None at the top)."""
    found = [(value.tag, outer)] if isinstance(value, Commented) else []
    inner = value.value if isinstance(value, Commented) else value
    holder = value.tag if isinstance(value, Commented) else outer
    children = (
        inner.values() if isinstance(inner, dict) else inner if isinstance(inner, list) else []
    )
    return found + [pair for child in children for pair in _tags(child, holder)]


def _comment_lines(value: Any) -> list[str]:
    """The comment lines of `value` and what it holds, in the order they are written."""
    inner = value.value if isinstance(value, Commented) else value
    found = list(value.comments) if isinstance(value, Commented) else []
    children = (
        inner.values() if isinstance(inner, dict) else inner if isinstance(inner, list) else []
    )
    return found + [line for child in children for line in _comment_lines(child)]


def _comments_written(text: str) -> list[str]:
    """The text's comment lines: lines starting with `#` outside a text (a `|` block's)."""
    inside: set[int] = set()
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(token, yaml.ScalarToken):
            end = token.end_mark.line + (token.end_mark.column > 0)
            inside.update(range(token.start_mark.line, end))
    lines = text.split("\n")
    return [line for n, line in enumerate(lines) if n not in inside and line.lstrip()[:1] == "#"]


def _commented_above(lines: list[str], start: int) -> bool:
    """Whether the entry on line `start` (1-based: its key's or dash's) has a comment above it."""
    return lines[start - 2].lstrip().startswith("#")


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=4))
def test_any_data_reads_back_with_its_comments_above_their_entries(data: dict[str, Any]) -> None:
    text, spans = dump(data, ("header",))
    assert yaml.safe_load(text) == plain(data)
    lines = text.split("\n")
    for tag, outer in _tags(data):
        start, end = spans[tag]
        assert _commented_above(lines, start)
        assert start <= end <= text.count("\n")
        if outer is not None:
            assert spans[outer][0] <= start <= end <= spans[outer][1]
    said = [part for line in _comment_lines(data) for part in line.splitlines() or [""]]
    assert len(_comments_written(text)) == 1 + len(said)  # the header, then a line each


def test_the_layout_is_the_suites() -> None:
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
    text, spans = dump(data, ("Converted",))
    assert text == (
        "# Converted\n"
        "models:\n"
        "  # promptfooconfig.yaml:3\n"
        "  - openai/gpt-4o-mini\n"
        "test_cases:\n"
        "  # a.yaml:7: refund\n"
        "  - id: refund\n"
        "    vars: {question: 'Can I get a refund?', n: 2}\n"
        "    checks:\n"
        "      # a.yaml:9\n"
        "      - {type: contains, value: refund}\n"
        "      - {type: expr, value: output | length < 500, weight: 0.5}\n"
        "    expected_behavior: |\n"
        "      Explains the policy\n"
        "      and the deadline\n"
    )
    assert spans == {"m": (4, 4), "t": (7, 15), "c": (11, 11)}


def test_a_long_text_is_written_on_one_line() -> None:
    long = "word " * 40 + "end"
    text, _ = dump({"judge": {"criteria": {"rubric": long}}})
    assert f"rubric: {long}\n" in text
    assert max(len(line) for line in text.splitlines()) > 100
    assert re.search(r"^    rubric: ", text, re.MULTILINE)
