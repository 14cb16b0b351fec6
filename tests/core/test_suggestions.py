"""The one "did you mean" of every error message."""

from __future__ import annotations

from promptum.foundations.suggestions import did_you_mean, suggestion


def test_the_closest_known_name_is_suggested_as_a_sentence() -> None:
    assert did_you_mean("contian", ["contains", "regex"]) == " Did you mean 'contains'?"


def test_nothing_is_suggested_when_no_name_is_close() -> None:
    assert did_you_mean("zzz", ["contains", "regex"]) == ""
    assert did_you_mean("contains", []) == ""


def test_a_mapping_is_matched_by_its_keys_and_suggests_their_values() -> None:
    known = {"openai": "OpenAI/gpt-4o", "ollama": "Ollama/gpt-4o"}
    assert did_you_mean("opnai", known) == " Did you mean 'OpenAI/gpt-4o'?"


def test_a_suggestion_quotes_the_name_as_python_does() -> None:
    assert suggestion("it's") == ' Did you mean "it\'s"?'
