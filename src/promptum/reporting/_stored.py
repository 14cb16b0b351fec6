"""A JSON report's results written from their stored JSON: decoded once, never validated.

After a streamed run, `promptum run` writes its whole-run reports from the run store, which
holds each result as `CaseResult` JSON that this very promptum wrote a moment before.
Validating each one into a model, only to dump it again, was most of the JSON report's
time. Its stored JSON is that dump already: it is decoded, its latency and cost rounded and
the earlier readers' views added, as `write_json` does for a model (tested byte for byte).
A result with field assertions or judge grades, whose views the models compute, takes the
model's path.

Floats are spelt as Python spells them (`indented`), searched for in the stored texts, which
are shorter than the report's: the report holds no float they do not (latency and cost
rounded stay below 1e-4 only if they were).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic_core import from_json

from promptum.foundations.redaction import REDACTED
from promptum.reporting._indented import indented, suspect
from promptum.reporting._numbers import cost_usd, latency_ms
from promptum.values.grade import CHECK_KINDS
from promptum.values.run_result import CaseResult

StoredJson = Callable[[], Iterable[str]]
"""Reads a run's results as stored: every call yields the JSON of all of them, in order."""

_MODELS_VIEW = frozenset({"assertion", "judge"})
"""Kinds of grade whose earlier readers' view (`eval_result`, `judge`) a model computes."""


def _item_data(text: str) -> dict[str, Any] | None:
    """The JSON report's object for one stored result; None when a model must make it."""
    try:
        return _decoded(text)
    except (KeyError, TypeError, AttributeError):  # not of this promptum's shape: validated
        return None


def _decoded(text: str) -> dict[str, Any] | None:
    data: dict[str, Any] = from_json(text, cache_strings="keys")  # values seldom repeat
    grades = data["grades"]
    if any(grade["kind"] in _MODELS_VIEW for grade in grades):
        return None
    # `asdict(CheckResult)` of each check grade, as `check_results` makes it; built here, in
    # line, as a call per grade cost more than the dict it makes.
    views = [
        {
            "type": grade["name"],
            "passed": grade["passed"],
            "description": grade["description"],
            "reason": grade["error"] or grade["reason"],
        }
        for grade in grades
        if grade["kind"] in CHECK_KINDS
    ]
    completion = data["completion"]
    completion["latency_ms"] = latency_ms(completion["latency_ms"])
    completion["cost_usd"] = cost_usd(completion["cost_usd"])
    data["check_results"] = views
    data["eval_result"] = None
    data["judge"] = None
    return data


def _items_text(batch: list[dict[str, Any]], respell: bool) -> str:
    """Results as the JSON report writes them, separated as `write_json` separates them.

    One encoding for them all, at the depth of the report's ``results`` list.
    """
    return indented({"": batch}, respell=respell)[len(_HEAD) : -len(_TAIL)]


_HEAD, _TAIL = '{\n  "": [\n    ', "\n  ]\n}"
"""What `_items_text` cuts off: the object and list around the results."""
_BATCH = 64
"""Results encoded together (memory stays bounded, calls are few)."""


def stored_items(texts: Iterable[str], item: Callable[[CaseResult], str]) -> Iterator[str]:
    """The JSON report's results from their stored JSON (`item` for the rest).

    Each text yielded is one or more results, as `write_json` writes them between its
    separators.
    """
    batch: list[dict[str, Any]] = []
    respell = False
    for text in texts:
        data = _item_data(text)
        if data is not None:
            batch.append(data)
            respell = respell or suspect(text)
            if len(batch) == _BATCH:
                yield _items_text(batch, respell)
                batch, respell = [], False
            continue
        if batch:
            yield _items_text(batch, respell)
            batch, respell = [], False
        yield item(CaseResult.model_validate_json(text))
    if batch:
        yield _items_text(batch, respell)


def holds_no_secret(stored: StoredJson, secrets: tuple[str, ...]) -> bool:
    """Whether no stored result holds a secret, nor the mark of one replaced when recorded.

    Then replacing the secrets changes no result (`scrub_json` looks for them in the same
    text), and the results were recorded as the run counted them: its figures stand, and
    are not counted again from every result validated (most of a report's time).
    """
    return not any(
        REDACTED in text or any(secret in text for secret in secrets) for text in stored()
    )
