"""Reports' results written from their stored JSON: decoded, never validated.

After a streamed run, `promptum run` writes its whole-run reports from the run store, which
holds each result as `CaseResult` JSON that this very promptum wrote a moment before.
Validating each one into a model, only to dump it again, was most of a report's time.

A result's grades are most of its JSON, and the results of a run are mostly graded alike
(the same checks with the same descriptions, passed). So both reports cut a stored result
in two (`grades_span`): its grades, kept as text, and the rest, decoded; what a report makes
of the grades is made once per distinct grades text (`Memo`). The JSON report does so for
grades seen again, and only while a run's grades repeat (`_GradesBlocks`): a judge's reasons
make each result's grades its own, and those results are decoded and written whole.

The JSON report (`stored_items`) writes each result as `write_json` does, its latency and
cost rounded, and beside its grades their earlier readers' views, made from the grades
alone by the values' own functions (`check_fields`, `eval_result`, `judge_fields`), which
the result's own views use too. The JUnit report reads less of a result. A result whose
JSON is not of this promptum's shape is validated, as before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from pydantic_core import from_json

from promptum.foundations.redaction import REDACTED
from promptum.reporting._indented import indented
from promptum.reporting._numbers import cost_usd, latency_ms
from promptum.values.documented_views import check_fields, eval_result, judge_fields
from promptum.values.grade import CHECK_KINDS, Grade
from promptum.values.run_result import CaseResult

StoredJson = Callable[[], Iterable[str]]
"""Reads a run's results as stored: every call yields the JSON of all of them, in order."""

_GRADES = '"grades":'
_AFTER_GRADES = ',"expected_behavior":'
"""The key pydantic writes right after a result's grades (`CaseResult`'s field order)."""

_Made = TypeVar("_Made")


def _only(text: str, key: str) -> int:
    """Where `key` is in `text` if it is there once, else -1: one scan (`count` is another)."""
    at = text.find(key)
    return at if at == -1 or text.find(key, at + len(key)) == -1 else -1


def grades_span(text: str) -> tuple[int, int] | None:
    """Where a stored result's grades (their JSON text) are in it; None when not of this shape.

    Each key is found by its text: a key's closing quote is never escaped, and inside a
    string every quote is, so where ``"grades":[`` and ``,"expected_behavior":`` are each
    written once they are the result's own keys, not a key of its model output or a check's
    details.
    """
    start = _only(text, _GRADES + "[")
    end = _only(text, _AFTER_GRADES)
    if start == -1 or end < start:
        return None
    return start + len(_GRADES), end


def _rest(text: str, start: int, end: int) -> dict[str, Any] | None:
    """A stored result decoded but for its grades (at `start:end`), which are left empty."""
    rest = from_json(text[:start] + "[]" + text[end:], cache_strings="keys")
    return rest if isinstance(rest, dict) else None


def split(text: str) -> tuple[str, dict[str, Any]] | None:
    """A stored result's grades (their JSON text), and the rest of it decoded, grades empty.

    None when the text is not of this promptum's shape (`grades_span`).
    """
    span = grades_span(text)
    rest = None if span is None else _rest(text, *span)
    return None if span is None or rest is None else (text[span[0] : span[1]], rest)


class Memo(Generic[_Made]):
    """What a report makes of grades, by their stored text; bounded, as texts may all differ."""

    LIMIT = 4096

    def __init__(self) -> None:
        self._made: dict[Any, _Made] = {}

    def get(self, key: Any) -> _Made | None:
        """What was made for `key`; None if nothing was (or None was)."""
        return self._made.get(key)

    def keep(self, key: Any, made: _Made) -> _Made:
        """`made`, remembered for `key` (all is forgotten once full)."""
        if len(self._made) >= self.LIMIT:
            self._made.clear()
        self._made[key] = made
        return made

    def made(self, key: Any, make: Callable[[], _Made]) -> _Made:
        """What `make` made for `key`: made now if not yet."""
        try:
            return self._made[key]
        except KeyError:
            return self.keep(key, make())


_MODELS_VIEW = frozenset({"assertion", "judge"})
"""Kinds of grade whose earlier readers' view (`eval_result`, `judge`) a model computes."""
_DEPTH = "\n    "
"""Each line of a result's item after its first, in the report's ``results`` list."""
_COST_SLOT = _DEPTH + '    "cost_usd": null'
"""Where its cost goes: the completion's keys are the only ones indented so. Spelt here, as
Python spells it: pydantic-core spells most costs (below 1e-4) otherwise, and respelling
them in the item's text would cost more than the rest of it."""


def legacy_views(grades: list[dict[str, Any]]) -> dict[str, Any]:
    """The `check_results`, `eval_result` and `judge` views of a result's grades (as JSON).

    Earlier readers know them, and the JSON report writes them beside the grades. Those of
    the field assertions and the judge are made from those grades (a few) by the functions
    the result's own views use.
    """
    viewed = [Grade(**grade) for grade in grades if grade["kind"] in _MODELS_VIEW]
    evaluation = eval_result(viewed)
    return {
        "check_results": [
            check_fields(g["name"], g["passed"], g["description"], g["error"], g["reason"])
            for g in grades
            if g["kind"] in CHECK_KINDS
        ],
        "eval_result": None if evaluation is None else evaluation.model_dump(mode="json"),
        "judge": judge_fields(viewed),
    }


_GRADES_SLOT = '\n  "grades": []'
"""Where a result's grades go in its item made with none: at the item's first depth, where
no string's text can be (a string's line breaks are escaped)."""


def _grades_blocks(grades_text: str) -> tuple[str, str]:
    """The item text of a result's grades, and of their views after the rest, at its depth.

    Made once per distinct grades text (`Memo`): a run's results are mostly graded alike,
    and the grades with their views are most of a result's item.
    """
    grades = from_json(grades_text)
    listed = indented({"grades": grades}).removesuffix("\n}")
    views = indented(legacy_views(grades)).removeprefix("{").removesuffix("\n}")
    return listed[1:].replace("\n", _DEPTH), ("," + views).replace("\n", _DEPTH)


class _GradesBlocks:
    """The item blocks of the grades a run's results repeat, while its grades repeat enough."""

    TRIAL = 256
    """Grades looked up before deciding: when fewer than a quarter of them were seen before
    (a judge's reasons differ from result to result), looking each up costs more than the
    blocks save, and the rest are written whole."""

    def __init__(self) -> None:
        self.made: Memo[tuple[str, str]] = Memo()
        self.looked = 0
        self.found = 0

    @property
    def paying(self) -> bool:
        """Whether to look a result's grades up: decided once, on a run's first results."""
        return self.looked < self.TRIAL or self.found * 4 >= self.looked


def _item_text(text: str, blocks: _GradesBlocks) -> str | None:
    """The JSON report's item for one stored result; None when it is not of this shape.

    Grades seen for the first time are written with the rest of their result; grades seen
    again are made once (`_grades_blocks`) and put in each result's item after.
    """
    span = grades_span(text) if blocks.paying else None
    if span is None:
        return _whole_item(text)
    grades_text = text[span[0] : span[1]]
    made = blocks.made.get(grades_text)
    blocks.looked += 1
    if made is None:
        blocks.made.keep(grades_text, _SEEN_ONCE)
        return _whole_item(text)
    blocks.found += 1
    try:
        if made is _SEEN_ONCE:
            made = blocks.made.keep(grades_text, _grades_blocks(grades_text))
        data = _rest(text, *span)
        if data is None:
            return None
        return _spliced_item(data, *made)
    except (KeyError, TypeError, AttributeError, ValueError):  # not of this shape: validated
        return None


_SEEN_ONCE = ("", "")
"""What `_item_text` keeps of grades seen once: their blocks are made when seen again."""


def _whole_item(text: str) -> str | None:
    """The item of one stored result, decoded and written whole."""
    try:
        data = from_json(text)
        data.update(legacy_views(data["grades"]))
        cost = _rounded(data)
    except (KeyError, TypeError, AttributeError, ValueError):  # not of this shape: validated
        return None
    return _with_cost(indented(data).replace("\n", _DEPTH), cost)


def _spliced_item(data: dict[str, Any], listed: str, views: str) -> str | None:
    """The item of a stored result decoded without its grades, their blocks put in."""
    cost = _rounded(data)
    rest = indented(data).removesuffix("\n}")
    at_grades = rest.find(_GRADES_SLOT)
    if at_grades == -1 or rest.find(_GRADES_SLOT, at_grades + 1) != -1:
        return None
    after = rest[at_grades + len(_GRADES_SLOT) :]
    item = rest[:at_grades].replace("\n", _DEPTH) + listed + after.replace("\n", _DEPTH)
    return _with_cost(item + views + _DEPTH + "}", cost)


def _rounded(data: dict[str, Any]) -> object:
    """Round a stored result's latency and cost (each turn's too); take out its own cost.

    `_with_cost` puts the result's cost back, spelt as Python spells it.
    """
    completion = data["completion"]
    completion["latency_ms"] = latency_ms(completion["latency_ms"])
    cost = cost_usd(completion["cost_usd"])
    completion["cost_usd"] = None
    for turn in data.get("turns") or ():
        # A turn's cost is written as the report writes it, from the same float.
        turn_completion = turn["completion"]
        turn_completion["latency_ms"] = latency_ms(turn_completion["latency_ms"])
        turn_completion["cost_usd"] = cost_usd(turn_completion["cost_usd"])
    return cost


def _with_cost(item: str, cost: object) -> str | None:
    """`item` with its completion's cost spelt as Python spells it (see `_COST_SLOT`)."""
    at_cost = item.find(_COST_SLOT)
    if at_cost == -1:
        return None
    spelt = repr(cost) if type(cost) is float and math.isfinite(cost) else json.dumps(cost)
    return item[:at_cost] + _COST_SLOT[:-4] + spelt + item[at_cost + len(_COST_SLOT) :]


def stored_items(texts: Iterable[str], item: Callable[[CaseResult], str]) -> Iterator[str]:
    """The JSON report's results from their stored JSON (`item` for the rest).

    Each text yielded is one result, as `write_json` writes it between its separators.
    """
    blocks = _GradesBlocks()
    for text in texts:
        made = _item_text(text, blocks)
        yield item(CaseResult.model_validate_json(text)) if made is None else made


def holds_no_secret(stored: StoredJson, secrets: tuple[str, ...]) -> bool:
    """Whether no stored result holds a secret, nor the mark of one replaced when recorded.

    Then replacing the secrets changes no result (`scrub_json` looks for them in the same
    text), and the results were recorded as the run counted them: its figures stand, and
    are not counted again from every result validated (most of a report's time).
    """
    return not any(
        REDACTED in text or any(secret in text for secret in secrets) for text in stored()
    )
