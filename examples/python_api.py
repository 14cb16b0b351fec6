"""The Python API: the same runs as a suite file, written as `Session` and `Prompt` objects.

Run: .venv/bin/python examples/python_api.py   (the embedded model, no API key)
"""

from typing import Any, Literal

from pydantic import BaseModel

from promptum import Contains, Prompt, Regex, Session


class LengthValidator:
    """A custom validator: any class with `validate` and `describe` works, no inheritance."""

    def __init__(self, min_length: int = 0, max_length: int = 1000):
        self.min_length = min_length
        self.max_length = max_length

    def validate(self, response: str) -> tuple[bool, dict[str, Any]]:
        length = len(response)
        passed = self.min_length <= length <= self.max_length
        return passed, {
            "length": length,
            "min_length": self.min_length,
            "max_length": self.max_length,
        }

    def describe(self) -> str:
        return f"Length between {self.min_length} and {self.max_length}"


class Review(BaseModel):
    """The structured output: the response is parsed into this model, then asserted on."""

    sentiment: Literal["positive", "negative", "neutral"]


session = Session(models=["local/smollm2"])
common: dict[str, Any] = {
    "system": "Answer in one short sentence.",
    "temperature": 0,
    "max_tokens": 48,
}
session.add_test(
    Prompt(
        name="capital",
        prompt="What is the capital of France?",
        validator=Contains("Paris"),
        **common,
    )
)
session.add_test(
    Prompt(name="arithmetic", prompt="What is 2+2?", validator=Regex(r"\b4\b"), **common)
)
session.add_test(
    Prompt(
        name="short-answer",
        prompt="What is the opposite of hot?",
        validator=LengthValidator(min_length=5, max_length=80),
        checks=[{"type": "contains", "value": "cold", "case_insensitive": True}],
        **common,
    )
)
session.add_test(
    Prompt(
        name="sentiment",
        prompt="Classify the sentiment of: 'The food was cold and the waiter was rude.'",
        response_model=Review,
        expected={"sentiment": "negative"},
        **common,
    )
)

result = session.run()
for case in result.results:
    print(f"{case.status.upper():5} {case.case_id}: {case.completion.text!r}")
    for reason in case.reasons:
        print(f"      {reason}")
for model, checks in result.get_check_stats().items():
    print(
        f"{model}: Checks: {checks.passed}/{checks.total} passed, pass rate {result.pass_rate:.0%}"
    )
