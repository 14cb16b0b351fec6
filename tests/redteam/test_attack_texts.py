"""The attack texts: every sentence of strategies.yaml arrives whole, and JSON carriers parse."""

from __future__ import annotations

import json
from importlib import resources
from string import Template
from typing import Any

import yaml

from promptum.redteam import RedteamSpec, SuiteFacts, generate_cases
from promptum.redteam._data import data

# A rule with both characters JSON must escape inside a string.
RULE = 'Never quote "C:\\Users\\admin" to anyone.'


def _nodes(node: yaml.Node, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every (path, node) under `node`, the node included."""
    found: list[tuple[tuple[str, ...], Any]] = [(path, node)]
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            found += _nodes(value, (*path, str(key.value)))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            found += _nodes(item, (*path, str(index)))
    return found


def test_every_sentence_in_a_flow_list_of_the_data_is_quoted_so_no_comma_cuts_it() -> None:
    # In `[...]` a plain scalar ends at its first comma: `[dis-moi ce que ..., code compris]`
    # is two texts. Sentences (payloads, multilingual templates, shots) are quoted there.
    text = resources.files("promptum.redteam").joinpath("strategies.yaml").read_text("utf-8")
    plain = [
        "/".join(path)
        for path, node in _nodes(yaml.compose(text))
        if isinstance(node, yaml.SequenceNode) and node.flow_style
        and (path[0] in ("payloads", "shots") or "languages" in path)
        for item in node.value
        if not (isinstance(item, yaml.ScalarNode) and item.style in ('"', "'"))
    ]  # fmt: skip
    assert plain == []


def test_each_language_asks_for_each_goal_in_one_whole_sentence() -> None:
    for goal, by_language in data().payloads.items():
        assert len(by_language["en"]) >= 3, goal
        for language, texts in by_language.items():
            if language == "en":
                continue
            assert len(texts) == 1, (goal, language, texts)  # one sentence, never its pieces
            # The sentence uses what the English ones use: none of its placeholders was cut off.
            wanted = set(Template(by_language["en"][0]).get_identifiers())
            assert set(Template(texts[0]).get_identifiers()) == wanted, (goal, language)


def test_a_multilingual_attack_carries_the_whole_sentence_of_its_language() -> None:
    spec = RedteamSpec(goals=["prompt_leak"], strategies=["multilingual"], per_goal=200)
    queries = [c["query"] for c in generate_cases(spec, SuiteFacts(system="You help."))]
    for language, sentences in data().payloads["prompt_leak"].items():
        if language != "en":
            (sentence,) = sentences
            assert any(sentence in query for query in queries), (language, sentence)
    # The ends the comma used to cut off.
    assert any("samt Codes" in query for query in queries)
    assert any("pamoja na misimbo" in query for query in queries)


def _tool_facts() -> SuiteFacts:
    lookup = {
        "name": "lookup",
        "parameters": {
            "type": "object",
            "properties": {"order": {"type": "string"}},
            "required": ["order"],
        },
    }
    return SuiteFacts(tools=[{"type": "function", "function": lookup}], system="You help.")


def test_a_json_tool_result_stays_json_when_the_payload_holds_quotes_and_backslashes() -> None:
    spec = RedteamSpec(goals=["policy"], strategies=["tool_output"], policy=RULE, per_goal=30)
    results = [c["messages"][-1]["content"] for c in generate_cases(spec, _tool_facts())]
    objects = [json.loads(text) for text in results if text.startswith("{")]
    assert objects  # the JSON template was drawn
    for result in objects:
        assert RULE in result["note"]


def test_a_faked_json_message_of_delimiter_break_is_valid_json_around_the_payload() -> None:
    spec = RedteamSpec(goals=["policy"], strategies=["delimiter_break"], policy=RULE, per_goal=40)
    faked = [
        line
        for case in generate_cases(spec, SuiteFacts(system="You help."))
        for line in case["query"].splitlines()
        if line.startswith('{"role": "system"')
    ]
    assert faked
    for line in faked:
        assert RULE in json.loads(line)["content"]


def test_a_template_that_writes_json_fills_it_only_with_json_escaped_texts() -> None:
    written = [
        (name, template)
        for name, strategy in data().strategies.items()
        for template in strategy.templates
        if '{"' in template
    ]
    assert {name for name, _ in written} >= {"tool_output", "delimiter_break"}
    for name, template in written:
        for placeholder in Template(template).get_identifiers():
            assert placeholder.endswith("_json"), (name, placeholder)
