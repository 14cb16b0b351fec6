"""Validators, checks and field assertions on responses you already have (no model needed).

Run: .venv/bin/python examples/validators.py
"""

import re
from typing import Any

from pydantic import BaseModel

from promptum import (
    AllOf,
    Completion,
    Contains,
    ExactMatch,
    JsonSchema,
    Not,
    Regex,
    Validator,
    evaluate,
    evaluate_checks,
    print_eval_result,
)
from promptum.checks import CheckDefinition

# Validators check a response text and explain the outcome.
print(ExactMatch("42").validate("42"))
print(Contains("python", case_sensitive=False).validate("PYTHON rocks"))
print(Regex(r"\d{3}-\d{4}").validate("Call 555-1234"))
print(JsonSchema(required_keys=("status", "data")).validate('{"status": "ok"}'))
no_apology = Not(Regex(r"sorry|apolog", flags=re.IGNORECASE))
print(AllOf((Contains("Paris"), no_apology)).describe())


class WordCount:
    """A custom validator: no base class, just the two methods of the protocol."""

    def __init__(self, max_words: int) -> None:
        self.max_words = max_words

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        words = len(response.split())
        return words <= self.max_words, {"words": words, "max_words": self.max_words}

    def describe(self) -> str:
        return f"At most {self.max_words} words"


assert isinstance(WordCount(50), Validator)
print(WordCount(3).validate("far too many words here"))

# Checks are the `checks:` entries of a suite file, run on a whole completion.
checks = [
    CheckDefinition(type="is_valid_json"),
    CheckDefinition(type="contains", value='"name"'),
    CheckDefinition(type="max_latency_ms", value=5000),
]
completion = Completion(text='```json\n{"name": "Ada"}\n```', latency_ms=6120)
for result in evaluate_checks(checks, completion):
    print("PASS" if result.passed else "FAIL", result.description, result.reason or "")


# Field assertions compare structured output with expected values and attack targets.
class Refund(BaseModel):
    order_id: str
    refund_to: str
    priority: str


output = Refund(order_id="A-17", refund_to="ATTACKER-ACCOUNT", priority="high")
result = evaluate(
    output,
    expected={"order_id": "A-17", "priority": ["high", "urgent"]},
    attack_target={"refund_to": "ATTACKER-ACCOUNT"},
)
print_eval_result(result, output=output)
