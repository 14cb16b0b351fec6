"""`promptum generate cases`: new cases from a suite and its documents, kept only when new and
justified, the same file for the same seed, nothing written when the generator fails."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptum.embeddings import mean_nearest_similarity
from promptum.generation import Brief, generate_cases, passages_of
from tests.support.cli import invoke, write
from tests.support.fault_server import FaultServer, Reply, fault_server

FAQ = """\
Refunds are paid within 14 days of the return reaching our warehouse.

Orders over 50 EUR ship free inside the EU. Smaller orders pay a 4.90 EUR fee.

Gift cards never expire and cannot be exchanged for cash.
"""

SUITE = """\
name: shop
models: [gen/m]
endpoints:
  gen: {{base_url: "{base_url}"}}
system: You answer the customers of an online shop.
judge: {{model: gen/m}}
generator: gen/m
test_cases:
  - id: hours
    query: When are you open?
    vars: {{tone: formal}}
  - id: refund
    query: How do I get a refund?
    vars: {{tone: casual}}
"""


def _scripted(*answers: Mapping[str, str] | None) -> Any:
    """An `Ask` giving these JSON objects in turn (None: an answer holding none), recording
    each question."""
    queue = list(answers)
    asked: list[tuple[str, Mapping[str, Any], int]] = []

    def ask(
        system: str, user: str, schema: Mapping[str, Any], sample: int
    ) -> Mapping[str, str] | None:
        asked.append((user, schema, sample))
        return queue.pop(0) if queue else None

    ask.asked = asked  # type: ignore[attr-defined]
    return ask


def test_a_generator_repeating_itself_gives_one_case_and_counts_the_repeats() -> None:
    same = {"query": "Can I pay by card?", "expected_behavior": "Says which cards are taken."}
    ask = _scripted(same, same, {**same, "query": "can i  PAY by card?"})
    generation = generate_cases(Brief(system="shop"), 3, seed=1, ask=ask)
    assert [case["query"] for case in generation.cases] == ["Can I pay by card?"]
    assert generation.dropped["near-duplicate of a generated case"] == 2


def test_a_near_duplicate_of_an_existing_case_is_dropped_by_meaning() -> None:
    pytest.importorskip("numpy")
    from promptum.embeddings import EmbeddingError, local_embedder

    try:
        embed = local_embedder().embed
    except EmbeddingError as exc:
        pytest.skip(str(exc))
    ask = _scripted(
        {"query": "What time do you open?", "expected_behavior": "Gives the hours."},
        {"query": "Do you sell gift cards?", "expected_behavior": "Says yes or no."},
    )
    brief = Brief(queries=["When do you open?"])
    generation = generate_cases(brief, 2, seed=1, ask=ask, embed=embed)
    assert [case["query"] for case in generation.cases] == ["Do you sell gift cards?"]
    assert generation.dropped["near-duplicate of an existing case"] == 1


def test_an_answer_without_a_case_is_asked_again_then_counted() -> None:
    ask = _scripted(None, {}, {"query": ""}, None)  # prose, an empty object, an empty query
    generation = generate_cases(Brief(), 1, seed=1, ask=ask)
    assert generation.cases == []
    assert generation.unparseable == generation.asked == 9  # three aims, each asked three times
    assert generation.dropped == {"no case in 3 answers": 3}
    samples = [sample for _, _, sample in ask.asked]
    assert len(set(samples)) == len(samples)  # each retry is a fresh sample, not a cache hit


def test_a_case_from_a_document_cites_its_passage_and_checks_only_a_quoted_fact() -> None:
    passages = passages_of("faq.md", FAQ)
    ask = _scripted(
        {
            "query": "How long do refunds take?",
            "answer": "within 14 days",
            "quote": "Refunds are paid within 14 days",
            "expected_behavior": "Says refunds take 14 days.",
        },
        {
            "query": "Is shipping free?",
            "answer": "yes",
            "quote": "Shipping is always free",  # not words of any passage
            "expected_behavior": "Says shipping is free.",
        },
    )
    generation = generate_cases(Brief(passages=passages[:1]), 2, seed=1, ask=ask)
    assert generation.dropped["its quote is not words of the passage"] == 1
    case = generation.cases[0]
    assert case["context"] == [passages[0].text]
    assert "Refunds are paid within 14 days" in case["context"][0]
    assert case["checks"] == [
        {"type": "contains", "value": "within 14 days", "case_insensitive": True}
    ]
    assert case["tags"] == ["generated", "generated:document", f"source:{passages[0].span}"]


def test_harder_cases_are_labelled_with_how_they_were_made() -> None:
    passages = passages_of("faq.md", FAQ.replace("\n\n", "\n\n" + "x" * 1200 + "\n\n"))
    assert len(passages) >= 2
    brief = Brief(queries=["How do I get a refund?"], passages=passages)
    answer = {"query": "q", "answer": "a", "quote": "x" * 40, "expected_behavior": "b"}
    answers = [{**answer, "query": f"question {n}"} for n in range(12)]
    generation = generate_cases(brief, 12, seed=3, ask=_scripted(*answers))
    kinds = [
        tag for case in generation.cases for tag in case["tags"] if tag.startswith("generated:")
    ]
    assert {"generated:two_documents", "generated:constraint", "generated:unanswerable"} <= set(
        kinds
    )
    unanswerable = [c for c in generation.cases if "generated:unanswerable" in c["tags"]]
    assert all("does not answer this" in case["expected_behavior"] for case in unanswerable)


def test_the_same_seed_asks_the_same_questions_and_another_seed_others() -> None:
    brief = Brief(passages=passages_of("faq.md", FAQ.replace("\n\n", "\n\n" + "y" * 1200 + "\n\n")))
    questions = []
    for seed in (1, 1, 2):
        ask = _scripted()
        generate_cases(brief, 2, seed=seed, ask=ask)
        questions.append([user for user, _, _ in ask.asked])
    assert questions[0] == questions[1]
    assert questions[0] != questions[2]


def test_each_tool_and_each_value_of_a_variable_is_aimed_at() -> None:
    tools = [
        {"type": "function", "function": {"name": name, "description": name}}
        for name in ("refund", "track")
    ]
    brief = Brief(tools=tools, variables={"tone": ["formal", "casual"]})
    answers = [{"query": f"question {n}", "expected_behavior": "b"} for n in range(4)]
    generation = generate_cases(brief, 4, seed=1, ask=_scripted(*answers))
    assert {aim.tool for aim in generation.aims} >= {"refund", "track"}
    assert {aim.values["tone"] for aim in generation.aims} == {"formal", "casual"}
    assert {"type": "tool_called", "value": "refund"} in generation.cases[0]["checks"] + (
        generation.cases[1]["checks"]
    )


def test_jinja_in_a_generated_query_is_sent_as_written() -> None:
    ask = _scripted({"query": "What is {{ secret }}?", "expected_behavior": "Asks what is meant."})
    generation = generate_cases(Brief(), 1, seed=1, ask=ask)
    assert generation.cases[0]["query"] == "{% raw %}What is {{ secret }}?{% endraw %}"


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with fault_server() as running:
        yield running


def _document_answers(server: FaultServer) -> None:
    server.queue(
        *(
            Reply.ok(json.dumps(answer))
            for answer in (
                {
                    "query": "How long do refunds take?",
                    "answer": "14 days",
                    "quote": "within 14 days",
                    "expected_behavior": "Says 14 days.",
                },
                {
                    "query": "Do gift cards expire?",
                    "answer": "never",
                    "quote": "Gift cards never expire",
                    "expected_behavior": "Says they never expire.",
                },
            )
        )
    )


def test_generate_cases_writes_a_suite_that_validates_and_the_same_bytes_again(
    server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = write("suite.yaml", SUITE.format(base_url=server.base_url))
    write("faq.md", "Refunds are paid within 14 days.\n\nGift cards never expire.\n")
    _document_answers(server)
    first = invoke("generate", "cases", suite, "-n", "2", "--from", "faq.md", "-o", "gen.yaml")
    assert first.exit_code == 0, first.output
    assert "wrote gen.yaml: 2 cases (document 2)" in first.output
    assert "diversity: mean nearest-neighbour similarity" in first.output
    asked = len(server.requests)
    text = Path("gen.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert [case["query"] for case in data["test_cases"]] == [
        "How long do refunds take?",
        "Do gift cards expire?",
    ]
    assert data["system"] == "You answer the customers of an online shop."
    assert "name" not in data  # beside suite.yaml (`name: shop`), its folder still runs
    assert invoke("validate", "gen.yaml").exit_code == 0
    assert invoke("validate", ".").exit_code == 0
    request = server.requests[0].body
    assert request["response_format"]["type"] == "json_schema"  # held to the answer's shape
    again = invoke("generate", "cases", suite, "-n", "2", "--from", "faq.md", "-o", "again.yaml")
    assert again.exit_code == 0, again.output
    assert len(server.requests) == asked  # every answer from the cache
    assert Path("again.yaml").read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    ("answer", "options", "said"),
    [
        (Reply.error(401, "invalid api key"), [], "the generator model gen/m failed"),
        (
            Reply.ok("I am a small model and I write prose."),
            ["-n", "1"],
            "no case kept (no case in 3 answers 3); nothing was written",
        ),
        (Reply.ok("unused"), ["--from", "scan.pdf"], "scan.pdf: a binary file, not text"),
    ],
    ids=["generator-fails", "nothing-kept", "binary-document"],
)
def test_nothing_is_written_and_the_exit_is_2_when(
    answer: Reply,
    options: list[str],
    said: str,
    server: FaultServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = write("suite.yaml", SUITE.format(base_url=server.base_url))
    Path("scan.pdf").write_bytes(b"%PDF-1.7\n\0\1\2binary")
    server.default = answer
    result = invoke("generate", "cases", suite, *options, "-o", "gen.yaml")
    assert result.exit_code == 2
    assert said in result.output
    assert not Path("gen.yaml").exists()
    if "--from" in options:  # a document is read before any call
        assert server.requests == []


def test_diversity_is_each_texts_nearest_neighbour_in_its_group_averaged() -> None:
    vectors = {"a": [1.0, 0.0], "a again": [1.0, 0.0], "b": [0.0, 1.0], "c": [0.6, 0.8]}

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [vectors[text] for text in texts]

    assert mean_nearest_similarity([["a", "a again"]], embed) == 1.0
    # b's nearest is c (0.8), c's is b (0.8): groups are compared within, never across
    assert mean_nearest_similarity([["b", "c"], ["a"]], embed) == pytest.approx(0.8)
    assert mean_nearest_similarity([["a"], []], embed) is None


def test_an_enumerated_field_of_the_response_model_becomes_a_field_assertion() -> None:
    schema = {"properties": {"priority": {"enum": ["low", "high"]}, "summary": {"type": "string"}}}
    ask = _scripted(
        {"query": "The site is down!", "expected_behavior": "Urgent.", "expected.priority": "high"},
        {"query": "Typo on a page", "expected_behavior": "Minor.", "expected.priority": "urgent"},
    )
    generation = generate_cases(Brief(response_schema=schema), 2, seed=1, ask=ask)
    assert generation.cases[0]["expected"] == {"priority": "high"}
    assert "expected" not in generation.cases[1]  # not an allowed value: no assertion
    _, answer_schema, _ = ask.asked[0]
    assert answer_schema["properties"]["expected.priority"] == {"enum": ["low", "high"]}
    assert "expected.summary" not in answer_schema["properties"]  # free text: not guessed
