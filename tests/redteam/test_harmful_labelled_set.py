"""The `harmful` goal's labelled answers, and the benchmark that measures a judge on them.

The set's shape is checked here; the measuring code (benchmarks/judge_harmful.py) is shown to
work through the real judge path against the fault server on 127.0.0.1 playing the judge: a
judge that answers by the label scores 1.00/1.00, one that passes everything recall 0.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from benchmarks.judge_harmful import Measure, labelled_answers, measure, report

from promptum.providers import ClientOptions, EndpointConfig
from promptum.redteam._harms import CATEGORIES
from tests.support.fault_server import FaultServer, Reply, fault_server

JUDGE = "fault/judge"
FAILED = json.dumps({"score": 0, "reason": "It gives the harmful help."})
KEPT = json.dumps({"score": 10, "reason": "It refuses."})


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def _measured(server: FaultServer, answers: list[dict[str, Any]]) -> Measure:
    """The benchmark's measure of the fault server as the judge, without retries or cache."""
    # No cache: a verdict cached by another test would answer in the server's place.
    endpoint = EndpointConfig(base_url=server.base_url)
    options = ClientOptions(max_retries=0, cache=False, endpoints={"fault": endpoint})
    return asyncio.run(measure(answers, JUDGE, options))


def _answers() -> list[dict[str, Any]]:
    return labelled_answers()


def test_twenty_answers_each_way_with_unique_ids() -> None:
    answers = _answers()
    labels = Counter(answer["attack"] for answer in answers)
    assert set(labels) == {"succeeded", "resisted"}
    assert labels["succeeded"] >= 20
    assert labels["resisted"] >= 20
    assert len({answer["id"] for answer in answers}) == len(answers)


def test_every_answer_names_a_category_a_request_and_a_text() -> None:
    for answer in _answers():
        assert answer["category"] in CATEGORIES, answer["id"]
        assert answer["request"].strip(), answer["id"]
        assert answer["text"].strip(), answer["id"]


def test_the_answers_spread_over_every_category_both_ways() -> None:
    for label in ("succeeded", "resisted"):
        named = {a["category"] for a in _answers() if a["attack"] == label}
        assert named == set(CATEGORIES), label


def test_a_judge_that_answers_by_the_label_scores_one_and_one(
    server: FaultServer,
) -> None:
    answers = _answers()
    server.queue(*(Reply.ok(FAILED if a["attack"] == "succeeded" else KEPT) for a in answers))
    found = _measured(server, answers)
    succeeded = sum(a["attack"] == "succeeded" for a in answers)
    assert found.counts == {"TP": succeeded, "TN": len(answers) - succeeded}
    assert found.quality.figures() == {"precision": 1.0, "recall": 1.0, "specificity": 1.0}
    assert found.errors == []
    assert "precision 1.00, recall 1.00" in report(found)


def test_each_judge_call_carries_the_request_the_answer_and_its_category_rubric(
    server: FaultServer,
) -> None:
    answers = _answers()
    server.default = Reply.ok(KEPT)
    _measured(server, answers)
    assert len(server.requests) == len(answers)
    for answer, recorded in zip(answers, server.requests, strict=True):
        prompt = json.dumps(recorded.body)
        for part in (answer["request"], answer["text"], CATEGORIES[answer["category"]].title):
            assert json.dumps(part)[1:-1] in prompt, (answer["id"], part)


def test_a_judge_that_passes_everything_has_recall_zero(
    server: FaultServer,
) -> None:
    answers = _answers()
    server.default = Reply.ok(KEPT)
    found = _measured(server, answers)
    assert found.quality.recall == 0.0
    assert found.counts["FN"] == sum(a["attack"] == "succeeded" for a in answers)
    assert found.counts["FP"] == 0


def test_a_judge_without_a_score_is_counted_apart(
    server: FaultServer,
) -> None:
    answers = _answers()[:2]
    server.default = Reply.ok("I would rather not say.")
    found = _measured(server, answers)
    assert sum(found.counts.values()) == 0
    assert [error.split(":")[0] for error in found.errors] == [a["id"] for a in answers]
    assert "no verdict 2" in report(found)
