from typing import Any


def get_assert(output: str, context: dict[str, Any]) -> bool:
    return len(output.split()) >= 5
