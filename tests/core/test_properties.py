"""Property tests: no response text makes a validator or a check raise."""

from hypothesis import given, settings
from hypothesis import strategies as st

from promptum import Completion
from promptum.checks import CHECK_TYPES, CheckDefinition, evaluate_checks
from promptum.validation import (
    AllOf,
    AnyOf,
    Contains,
    ExactMatch,
    IsValidJson,
    JsonSchema,
    Length,
    Not,
    NotContains,
    NotRegex,
    Regex,
)

VALIDATORS = [
    ExactMatch("x"),
    ExactMatch("ß", case_sensitive=False),
    Contains("{"),
    Contains("İ", case_sensitive=False),
    NotContains("```"),
    Regex(r"(\w+)@(\w+)\.com"),
    NotRegex(r"^\s*$"),
    JsonSchema(required_keys=("a",)),
    JsonSchema(schema={"type": "object", "required": ["a"]}),
    IsValidJson(),
    Length(1, 10),
    AllOf((Contains("a"), Not(Regex("b")))),
    AnyOf((IsValidJson(), Length(max_length=0))),
]

DEFINITIONS = [
    CheckDefinition(type=name, value=value)
    for name, value in [
        ("contains", "x"),
        ("not_contains", "y"),
        ("regex", r"\d+"),
        ("not_regex", "(a|b)*c"),
        ("exact_match", "z"),
        ("is_valid_json", None),
        ("max_latency_ms", 10),
        ("max_cost_usd", 0.5),
        ("min_length", 2),
        ("max_length", 5),
        ("tool_called", "lookup"),
        ("tool_not_called", "transfer"),
        ("tool_order", ["lookup", "transfer"]),
        ("tool_args", {"tool": "transfer", "attack_target": {"account": "EVIL"}}),
        ("secret_not_leaked", ["Bluebird", "4417-2290"]),
        ("pii_not_leaked", {"name": "Mara Quenby", "email": "mara.quenby@example.org"}),
        ("no_exfiltration", ["example.com"]),
        ("field_not_hijacked", {"field": "answer.text", "value": "hijacked-abc234"}),
        ("starts_with", "Ahoy"),
        ("ends_with", "."),
        ("contains_any", ["a", "b"]),
        ("contains_all", ["a", "b"]),
        ("levenshtein", {"expected": "Paris", "max_distance": 2}),
        ("approx", {"approx": 12.5, "abs": 0.01}),
        ("answered", None),
        ("rouge", "the cat sat"),
        ("bleu", "the cat sat"),
        ("expr", "output | length < 500"),
    ]
]
# A canary check gets its value as the suite loader gives it: with the token in the context.
DEFINITIONS.append(
    CheckDefinition.model_validate(
        {"type": "canary_not_leaked", "value": "qzvkdprmxwtbhjncsfay"},
        context={"canary": "qzvkdprmxwtbhjncsfay"},
    )
)

json_like = st.recursive(
    st.none() | st.booleans() | st.floats() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
).map(repr)
texts = st.text() | json_like | st.sampled_from(["[" * 5000, "```json\n" + "{" * 3000 + "\n```"])


@settings(max_examples=300)
@given(texts)
def test_validators_never_raise(text: str) -> None:
    for validator in VALIDATORS:
        passed, details = validator.validate(text)
        assert isinstance(passed, bool)
        assert isinstance(details, dict)


@settings(max_examples=300)
@given(
    texts,
    st.none() | st.floats(allow_nan=False, min_value=0, max_value=1e9),
    st.none() | st.floats(allow_nan=False, min_value=0, max_value=100),
)
def test_checks_never_raise_and_keep_order(
    text: str, latency: float | None, cost: float | None
) -> None:
    completion = Completion(text=text, latency_ms=latency, cost_usd=cost)
    results = evaluate_checks(DEFINITIONS, completion)
    assert [r.type for r in results] == [d.type for d in DEFINITIONS]
    # Every deterministic type; `similar` (a model) and `python` have tests of their own.
    assert {d.type for d in DEFINITIONS} == set(CHECK_TYPES) - {"similar", "python"}
    for result in results:
        assert result.passed or result.reason
