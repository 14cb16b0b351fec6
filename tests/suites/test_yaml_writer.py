"""The suites' writer: what it writes, the suite loader reads back as it was given."""

from __future__ import annotations

import io
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptum.suites import suite_text, suite_yaml, yaml11_text

_SCALARS = (
    st.text()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.booleans()
    | st.none()
    | st.sampled_from(["yes", "on", "1:20", "0o7", "~", "<<", "what?", "a: b", "- x", "1e3"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), _VALUES, max_size=5))
def test_what_is_written_reads_back_as_yaml_1_1_reads_it(data: dict[str, Any]) -> None:
    assert yaml.safe_load(suite_text(data)) == data


def test_texts_yaml_1_1_reads_otherwise_are_quoted_and_floats_written_as_it_reads_them() -> None:
    text = suite_text({"a": "yes", "b": "1:20", "c": 1e17, "d": [1, "on"]})
    assert text == "a: 'yes'\nb: '1:20'\nc: 1.0e+17\nd: [1, 'on']\n"


def test_multi_line_text_is_a_block_and_a_long_list_is_not_on_one_line() -> None:
    long = [f"item number {n}" for n in range(12)]
    text = suite_text({"query": "one\ntwo\n", "list": long}, header=("made by a test",))
    assert text.startswith("# made by a test\nquery: |\n  one\n  two\nlist:\n  - item number 0\n")
    assert yaml.safe_load(text) == {"query": "one\ntwo\n", "list": long}


@settings(max_examples=200, deadline=None)
@given(st.text() | st.sampled_from(["yes", "on", "1:20", "what?", "a: b", "- x"]), st.floats())
def test_the_round_trip_quotes_texts_and_writes_floats_by_the_same_rule(
    text: str, number: float
) -> None:
    buffer = io.StringIO()
    suite_yaml().dump({"text": yaml11_text(text), "flow": [yaml11_text(text, flow=True)]}, buffer)
    assert yaml.safe_load(buffer.getvalue()) == {"text": text, "flow": [text]}
    buffer = io.StringIO()
    suite_yaml().dump({"number": number}, buffer)
    assert buffer.getvalue() == suite_text({"number": number})
