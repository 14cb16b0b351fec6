"""Examples copied verbatim from the reference documents, shared by the tests that use them."""

from __future__ import annotations

from typing import Any

# reference/deterministic-checks.md: the golden-set example, which must load unchanged.
REFERENCE_YAML = """\
test_cases:
  - id: "test-003"
    query: "Return the user profile as JSON"
    expected_behavior: "Valid JSON with a name field"
    checks:
      - type: is_valid_json
      - type: contains
        value: '"name"'
      - type: max_latency_ms
        value: 5000
"""


class LengthValidator:
    """reference/validation.md's custom validator: no inheritance, just the protocol."""

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
